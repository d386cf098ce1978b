// This host's clock against the broker's. A cross-site job starts at a common time the broker
// picks on its clock; each cluster reserves its part's nodes from that time on its own clock, and
// the broker ends the job and queues it again unless every part runs within its start barrier
// (`start_barrier`, coalloc::Policy::barrier_s) of that time. A cluster whose clock is off by
// more than that misses the barrier with every cross-site job; an offset of a few seconds already
// leaves the other parts' GPUs waiting that long in `spiderflow launch`'s own barrier, whose
// waits use a monotonic clock and so do not depend on it.
//
// The broker's time: /v1/clusters gives each published cluster's update time and its age, both
// by the broker's clock, in whole seconds; their sum is the broker's now during the call.
#include <algorithm>
#include <cmath>

#include "common/util/human_format.h"
#include "services/coalloc/coallocator.h"
#include "tools/spiderflow/doctor/checks.h"

namespace spiderflow::doctor {

// Past this (beyond what the reading itself cannot tell apart) the offset is worth an NTP fix.
constexpr double kClockWarnS = 2;

void check_clock(const SiteFacts& site, CheckResult& r) {
    const BrokerFacts& b = site.broker;
    if (b.url.empty()) return r.skip("no broker configured");
    if (!b.asked) return r.skip("--offline");
    if (!b.clusters) return r.skip("the broker gave no cluster list (see the checks above)");
    int64_t broker_now = 0;
    for (const auto& c : b.clusters->clusters)
        if (c.published()) broker_now = std::max(broker_now, c.updated_at + c.age_s);
    if (broker_now == 0) return r.skip("no cluster has published yet, and the broker's time is read from their update times");
    const double local = (b.asked_at + b.answered_at) / 2;
    const double offset = local - static_cast<double>(broker_now);
    // Whole seconds on the broker's side, and the call's own duration.
    const double slack = 1 + (b.answered_at - b.asked_at) / 2;
    const double beyond = std::fabs(offset) - slack;
    const double barrier = static_cast<double>(coalloc::Policy{}.barrier_s);
    const std::string said = "this host's clock is " + format_number("%.0f", std::fabs(offset)) + " s " +
                             (offset > 0 ? "ahead of" : "behind") + " the broker's";
    const std::string fix = "run NTP (chrony, systemd-timesyncd) on this host and the broker's, against the same servers";
    if (beyond > barrier) {
        r.error("clock", said + ", more than the broker's start barrier (" + format_number("%g", barrier) +
                             " s by default): every cross-site job with a part here misses it and is queued again", fix);
    } else if (beyond > kClockWarnS) {
        r.warning("clock", said + ": every cross-site job's parts start up to that far apart, the first ones' GPUs waiting", fix);
    } else {
        r.pass("within " + format_number("%.1f", slack) + " s of the broker's (what the reading can tell)");
    }
}

}  // namespace spiderflow::doctor
