#include "services/slurmjob/coflow_levels.h"

#include <algorithm>
#include <exception>

#include "common/coflow/traffic_class.h"
#include "common/plan/plan_json.h"
#include "common/plan/plan_routes.h"
#include "common/plan/plan_traffic.h"
#include "common/plan/plan_transport.h"
#include "services/slurmjob/plan_summary.h"

namespace spiderflow::slurmjob {

std::optional<double> wan_bottleneck_s(const std::string& summary, const Topology& topology) {
    PlanSummary s;
    if (!parse_plan_summary(summary, &s) || s.plan_data.empty()) return std::nullopt;
    const Plan plan = plan_from_json(decode_plan_text(s.plan_data, "AdminComment"), "AdminComment", &topology);
    // Bytes per route link: crossings whose routes share a link share its bandwidth. Each kind
    // of traffic rides the route the cost model prices it on (plan_routes.h).
    std::map<int, double> link_bytes;
    for (const CrossTraffic& t : cross_cluster_traffic(plan)) {
        if (t.pp_bytes > 0)
            for (int link : topology.route_links(t.a, t.b, pp_route(topology, plan, t.a, t.b))) link_bytes[link] += t.pp_bytes;
        if (t.dp_bytes > 0)
            for (int link : topology.route_links(t.a, t.b, dp_route_between(topology, plan, t.a, t.b)))
                link_bytes[link] += t.dp_bytes;
    }
    double worst = 0;
    for (const auto& [link, bytes] : link_bytes) {
        const double bw = topology.links[static_cast<size_t>(link)].bandwidth_Bps;
        if (bw > 0 && bytes > 0) worst = std::max(worst, bytes / bw);
    }
    if (worst <= 0) return std::nullopt;
    return worst;
}

namespace {

BottleneckMemo::Entry read_bottleneck(const CoflowJob& j, const Topology& topology) {
    BottleneckMemo::Entry e{j.summary, std::nullopt, {}};
    try {
        e.bottleneck = wan_bottleneck_s(j.summary, topology);
    } catch (const std::exception& ex) {
        e.error = ex.what();
    }
    return e;
}

}  // namespace

std::map<int, int> coflow_levels(const std::vector<CoflowJob>& jobs, const Topology& topology,
                                 std::vector<std::string>* skipped, BottleneckMemo* memo) {
    BottleneckMemo scratch;
    if (memo == nullptr) memo = &scratch;
    if (memo->topology != &topology) {
        memo->jobs.clear();
        memo->topology = &topology;
    }
    std::map<int, BottleneckMemo::Entry> now;
    std::vector<std::pair<double, int>> order;  // bottleneck, job
    for (const CoflowJob& j : jobs) {
        auto known = memo->jobs.find(j.job);
        BottleneckMemo::Entry e = known != memo->jobs.end() && known->second.summary == j.summary
                                      ? std::move(known->second)
                                      : read_bottleneck(j, topology);
        if (!e.error.empty() && skipped) skipped->push_back("job " + std::to_string(j.job) + ": " + e.error);
        if (e.bottleneck) order.push_back({*e.bottleneck, j.job});
        now[j.job] = std::move(e);
    }
    memo->jobs = std::move(now);
    std::sort(order.begin(), order.end());
    std::vector<int> ids;
    for (const auto& [b, job] : order) ids.push_back(job);
    std::map<int, int> out;
    for (const coflow::TrafficClass& c : coflow::classes_for_order(ids)) out[c.job] = c.level;
    return out;
}

}  // namespace spiderflow::slurmjob
