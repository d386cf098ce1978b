#include "common/slurmjob/coflow_levels.h"

#include <algorithm>
#include <exception>

#include "common/coflow/traffic_class.h"
#include "common/plan/plan_json.h"
#include "common/plan/plan_traffic.h"
#include "common/plan/plan_transport.h"
#include "common/slurmjob/plan_summary.h"

namespace spiderflow::slurmjob {

std::optional<double> wan_bottleneck_s(const std::string& summary, const Topology& topology) {
    PlanSummary s;
    if (!parse_plan_summary(summary, &s) || s.plan_data.empty()) return std::nullopt;
    const Plan plan = plan_from_json(decode_plan_text(s.plan_data, "AdminComment"), "AdminComment", &topology);
    // Bytes per route link: crossings whose widest routes share a link share its bandwidth.
    std::map<int, double> link_bytes;
    for (const CrossTraffic& t : cross_cluster_traffic(plan)) {
        for (int link : topology.route_links(t.a, t.b)) link_bytes[link] += t.pp_bytes + t.dp_bytes;
    }
    double worst = 0;
    for (const auto& [link, bytes] : link_bytes) {
        const double bw = topology.links[static_cast<size_t>(link)].bandwidth_Bps;
        if (bw > 0 && bytes > 0) worst = std::max(worst, bytes / bw);
    }
    if (worst <= 0) return std::nullopt;
    return worst;
}

std::map<int, int> coflow_levels(const std::vector<CoflowJob>& jobs, const Topology& topology,
                                 std::vector<std::string>* skipped) {
    std::vector<std::pair<double, int>> order;  // bottleneck, job
    for (const CoflowJob& j : jobs) {
        try {
            if (auto b = wan_bottleneck_s(j.summary, topology)) order.push_back({*b, j.job});
        } catch (const std::exception& e) {
            if (skipped) skipped->push_back("job " + std::to_string(j.job) + ": " + e.what());
        }
    }
    std::sort(order.begin(), order.end());
    std::vector<int> ids;
    for (const auto& [b, job] : order) ids.push_back(job);
    std::map<int, int> out;
    for (const coflow::TrafficClass& c : coflow::classes_for_order(ids)) out[c.job] = c.level;
    return out;
}

}  // namespace spiderflow::slurmjob
