#include "common/cost/cost_links.h"

#include <algorithm>
#include <cmath>

namespace spiderflow::cost {

LinkFigures link_between(const CostModel& model, const StageCell& x, const StageCell& y, int tp, bool single_site) {
    const CostModel::NodeFacts& fx = model.facts(x);
    LinkFigures l;
    if (x.cluster == y.cluster && x.node == y.node) {
        l.nic_Bps = fx.local_Bps;
        return l;
    }
    const CostModel::NodeFacts& fy = model.facts(y);
    const Topology& topology = model.topology();
    const Cluster& cx = topology.clusters[static_cast<size_t>(x.cluster)];
    const Cluster& cy = topology.clusters[static_cast<size_t>(y.cluster)];
    // A cell's share of its node's NICs: TP ranks each drive their own NIC (Megatron's
    // scatter/gather of p2p messages; one NCCL ring per rank for DP).
    const double sx = fx.network_Bps * tp / cx.nodes[static_cast<size_t>(x.node)].gpus;
    const double sy = fy.network_Bps * tp / cy.nodes[static_cast<size_t>(y.node)].gpus;
    l.nic_Bps = std::min(sx, sy);
    l.latency_s = std::max(cx.intra_latency_s, cy.intra_latency_s);
    if (x.cluster == y.cluster || single_site) return l;
    const PathInfo& path = topology.path(x.cluster, y.cluster);
    l.wan_Bps = path.bandwidth_Bps;
    l.latency_s = path.latency_s;
    l.a = x.cluster;
    l.b = y.cluster;
    return l;
}

void take_route(const CostModel& model, LinkFigures& l, RouteKind route) {
    if (l.a < 0) return;
    l.route = route;
    const PathInfo& path = model.topology().path(l.a, l.b, l.route);
    l.wan_Bps = path.bandwidth_Bps;
    l.latency_s = path.latency_s;
}

std::string link_problem(const CostModel& model, const LinkFigures& l, const StageCell& x, const StageCell& y) {
    if (l.nic_Bps > 0 && (l.a < 0 || (l.wan_Bps > 0 && std::isfinite(l.latency_s)))) return {};
    const auto& clusters = model.topology().clusters;
    return "no bandwidth between " + clusters[static_cast<size_t>(x.cluster)].name + "/" +
           clusters[static_cast<size_t>(x.cluster)].nodes[static_cast<size_t>(x.node)].name + " and " +
           clusters[static_cast<size_t>(y.cluster)].name + "/" +
           clusters[static_cast<size_t>(y.cluster)].nodes[static_cast<size_t>(y.node)].name;
}

PhaseShares::PhaseShares(const CostModel& model)
    : wan(model.topology()), fabric(model.fabrics()), sharing(model.options().link_sharing) {}

void PhaseShares::add(const LinkFigures& l, const StageCell& x, const StageCell& y) {
    if (!sharing) return;
    if (l.wan_Bps > 0) wan.add(l.a, l.b, l.route);
    else fabric.add(x, y);
}

double effective_Bps(const LinkFigures& l, const StageCell& x, const StageCell& y, PhaseShares& shares) {
    if (l.wan_Bps <= 0) return std::min(l.nic_Bps, shares.fabric.per_crossing_Bps(x, y));
    return std::min(l.nic_Bps, shares.wan.per_crossing_Bps(l.a, l.b, l.route));
}

}  // namespace spiderflow::cost
