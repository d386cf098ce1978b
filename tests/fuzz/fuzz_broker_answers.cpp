// Fuzz target: every reader of a broker body (services/broker_client/broker_api_types.h), as the
// agent and the `spiderflow` command read the broker's answers and the broker reads their
// requests. The first byte picks the reader (a letter of kReaders below, any other byte by its
// value), the rest is the body. A body must read or end as an InputError; one that reads must
// be written back by the body's writer and read again to the same text (what one side writes,
// the other reads). The federation's state is then read over its own topology and over aws-4 (as
// the agent checks it against its own), and federation deltas are applied to an aws-4 state as
// the agent applies them to its cache.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "common/site/site_json.h"
#include "common/site/site_state.h"
#include "common/topology/reader.h"
#include "common/topology/spiderflow_reader.h"
#include "common/topology/topology_json.h"
#include "common/util/errors.h"
#include "services/broker_client/broker_api_types.h"
#include "services/coalloc/xjob_json.h"

namespace {

namespace fs = std::filesystem;
using namespace spiderflow;
using namespace spiderflow::broker_api;

const std::shared_ptr<const Topology>& aws4() {
    static const auto t = [] {
        const char* src = std::getenv("SF_SRCDIR");
        const fs::path dir = src && *src ? fs::path(src) : fs::path(SF_PKGDATADIR);
        return std::make_shared<const Topology>(read_topology((dir / "contrib" / "topologies" / "aws-4.json").string(), ""));
    }();
    return t;
}

// The second read of what the writer wrote must give the same text again.
void same(const std::string& first, const std::string& again, const char* what) {
    if (first == again) return;
    std::fprintf(stderr, "spiderflow: fuzz_broker_answers: %s: written, read and written again differs\n%s\n%s\n", what,
                 first.c_str(), again.c_str());
    std::abort();
}

template <class Read, class Write>
void round_trip(const std::string& body, const char* what, Read read, Write write) {
    const std::string first = write(read(body, "fuzz"));
    std::string again;
    try {
        again = write(read(first, "written"));
    } catch (const InputError& e) {
        std::fprintf(stderr, "spiderflow: fuzz_broker_answers: %s: its own writing does not read: %s\n%s\n", what, e.what(),
                     first.c_str());
        std::abort();
    }
    same(first, again, what);
}

void federation(const std::string& body) {
    const Federation f = federation_from_text(body, "fuzz");
    auto own = std::make_shared<const Topology>(parse_spiderflow_topology(f.topology.dump(), "fuzz topology"));
    const SiteState s = site_state_from_json(f.state.dump(), own, "fuzz state");
    try {
        (void)site_state_from_json(f.state.dump(), aws4(), "fuzz state over aws-4");
    } catch (const InputError&) {
    }
    round_trip(federation_to_text(f.epoch, topology_to_json(*own, -1), site_state_to_json(s, -1)), "federation",
               [](const std::string& t, const std::string& src) { return federation_from_text(t, src); },
               [](const Federation& g) { return federation_to_text(g.epoch, g.topology.dump(), g.state.dump()); });
}

void federation_deltas(const std::string& body) {
    round_trip(body, "federation deltas", federation_deltas_from_text, federation_deltas_to_text);
    const FederationDeltas d = federation_deltas_from_text(body, "fuzz");
    SiteState cache(aws4());
    try {
        for (const SiteDelta& delta : d.deltas) cache.apply(delta);
    } catch (const InputError&) {
        return;  // the agent reads the whole federation then
    }
    cache.restore_epoch(d.epoch);
    (void)site_state_to_json(cache, -1);
}

template <class J>
std::string text(const J& j) {
    return j.dump();
}

void run(char which, const std::string& body) {
    switch (which) {
    case 'f': federation(body); break;
    case 'd': federation_deltas(body); break;
    case 'c':
        round_trip(body, "clusters", clusters_from_text, [](const Clusters& c) { return text(clusters_to_json(c)); });
        break;
    case 'p': {
        const Published p = published_from_text(body, "fuzz");
        (void)published_from_text(text(deltas_answer_to_json(p.epoch, p.applied)), "written");
        break;
    }
    case 'D': round_trip(body, "deltas", deltas_from_text, deltas_to_text); break;
    case 's': {
        const XJobState s = xjob_state_from_text(body, "fuzz");
        (void)s;
        break;
    }
    case 'C': {
        const std::optional<std::string> reason = cancel_reason_from_text(body, "fuzz");
        if (reason) same(*reason, cancel_reason_from_text(cancel_to_text(*reason), "written").value_or("(none)"), "cancel");
        break;
    }
    case 'X':
        round_trip(body, "xjobs", xjobs_from_text, [](const std::vector<coalloc::XJob>& jobs) {
            std::vector<const coalloc::XJob*> p;
            for (const auto& j : jobs) p.push_back(&j);
            return text(xjobs_to_json(p));
        });
        break;
    case 'x':
        round_trip(body, "xjob", xjob_from_text, [](const coalloc::XJob& j) { return text(coalloc::xjob_to_json(j, false)); });
        break;
    case 'o':
        round_trip(body, "orders", orders_from_text, [](const std::vector<coalloc::Order>& o) { return text(orders_to_json(o)); });
        break;
    case 'r': round_trip(body, "reports", reports_from_text, reports_to_text); break;
    case 't':
        round_trip(body, "tally", tally_from_text, [](const Tally& t) { return text(tally_to_json(t)); });
        break;
    case 'l': {
        const std::string link = probe_request_from_text(body, "fuzz");
        same(link, probe_request_from_text(probe_request_to_text(link), "written"), "probe request");
        break;
    }
    case 'P':
        round_trip(body, "probe", probe_from_text, [](const ProbeStatus& p) { return text(probe_to_json(p)); });
        break;
    case 'q':
        round_trip(body, "probes", probes_from_text, [](const std::vector<ProbeStatus>& p) { return text(probes_to_json(p)); });
        break;
    case 'O':
        round_trip(body, "probe orders", probe_orders_from_text,
                   [](const std::vector<probe::ProbeOrder>& o) { return text(probe_orders_to_json(o)); });
        break;
    case 'R': round_trip(body, "probe reports", probe_reports_from_text, probe_reports_to_text); break;
    }
}

constexpr char kReaders[] = "fdcpDsCXxortlPqOR";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    char which = static_cast<char>(data[0]);
    if (std::string_view(kReaders).find(which) == std::string_view::npos) which = kReaders[data[0] % (sizeof kReaders - 1)];
    try {
        run(which, std::string(reinterpret_cast<const char*>(data) + 1, size - 1));
    } catch (const InputError&) {
    }
    return 0;
}
