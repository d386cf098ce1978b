// The names orders and reports go by on the wire between the broker and the agents.
#include "services/coalloc/coallocator.h"

#include "common/util/name_table.h"

namespace spiderflow::coalloc {
namespace {

constexpr const char* kOrderNames[] = {"will_run", "reserve", "release", "submit", "cancel"};
constexpr const char* kReportNames[] = {"offer", "reserved", "reserve_failed", "released",
                                        "submitted", "running", "ended", "refused"};

}  // namespace

const char* order_name(OrderKind k) { return kOrderNames[static_cast<int>(k)]; }
const char* report_name(ReportKind k) { return kReportNames[static_cast<int>(k)]; }

bool order_from_name(const std::string& name, OrderKind* out) { return enum_from_name(kOrderNames, name, out); }
bool report_from_name(const std::string& name, ReportKind* out) { return enum_from_name(kReportNames, name, out); }

}  // namespace spiderflow::coalloc
