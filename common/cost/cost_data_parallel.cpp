#include <algorithm>
#include <cmath>
#include <utility>

#include "common/cost/comm.h"
#include "common/cost/cost_links.h"
#include "common/cost/cost_parts.h"
#include "common/plan/plan_routes.h"
#include "common/plan/plan_traffic.h"

namespace spiderflow::cost {

namespace {

// The edges of a ring over `members`; two members share one full-duplex link, one has none.
std::vector<std::pair<int, int>> ring_edges(const std::vector<int>& members) {
    std::vector<std::pair<int, int>> edges;
    const size_t n = members.size();
    if (n < 2) return edges;
    for (size_t k = 0; k < (n == 2 ? 1 : n); ++k) edges.emplace_back(members[k], members[(k + 1) % n]);
    return edges;
}

// How one stage's all-reduce runs: one flat ring over all replicas, or (hierarchical) a ring
// inside each cluster group and one over the groups' first members.
struct StageRings {
    std::vector<std::vector<int>> inside;   // flat: the one ring
    std::vector<int> across;                // empty when flat
};

StageRings rings_of(const Plan& plan, int stage, bool single_site) {
    StageRings out;
    // DiLoCo: every inner step's all-reduce stays in its site, one ring per cluster, never across.
    if (plan.job.sync.diloco()) {
        out.inside = dp_groups(plan, stage);
        return out;
    }
    std::vector<std::vector<int>> groups;
    // The one-site estimate prices the same GPUs as if they shared a cluster: nothing to cross.
    if (!single_site && plan.hierarchical_dp) groups = dp_groups(plan, stage);
    if (groups.size() < 2) {
        std::vector<int> all(static_cast<size_t>(plan.dp));
        for (int r = 0; r < plan.dp; ++r) all[static_cast<size_t>(r)] = r;
        out.inside.push_back(std::move(all));
        return out;
    }
    for (const auto& g : groups) out.across.push_back(g.front());
    out.inside = std::move(groups);
    return out;
}

// The slowest edge of a ring: least bandwidth, most latency.
struct RingFigures {
    std::string problem;
    double bw = INFINITY;
    double lat = 0;
};


// What each stage's all-reduce moves, and how it runs across clusters.
struct Payload {
    bool pseudo_gradients = false;   // DiLoCo outer step: pseudo-gradients at the outer precision
};

// Prices every stage's all-reduce over `rings` at once: one ring (or several independent ones
// with no ring across) of the whole payload, or hierarchical: a reduce-scatter inside each
// group, a ring across the groups, an all-gather inside.
DataParallelTimes allreduce_times(const CostModel& model, const Plan& plan, const std::vector<StageRings>& rings,
                                  Payload payload, bool single_site) {
    const int P = plan.pp, D = plan.dp, T = plan.tp;
    DataParallelTimes out;
    out.allreduce_s.assign(static_cast<size_t>(P), 0.0);
    if (D <= 1) return out;
    auto link = [&](int s, int x, int y, size_t ring) {
        LinkFigures l = link_between(model, plan.cell(s, x), plan.cell(s, y), T, single_site);
        if (l.a >= 0) take_route(model, l, dp_route(model.topology(), plan, s, static_cast<int>(ring), l.a, l.b));
        return l;
    };
    // Every stage reduces at once: all their crossings share the WAN links and switch uplinks
    // before any is priced.
    PhaseShares shares(model);
    for (int s = 0; s < P; ++s) {
        const StageRings& sr = rings[static_cast<size_t>(s)];
        for (const auto& ring : sr.inside)
            for (const auto& [x, y] : ring_edges(ring)) shares.add(link(s, x, y, ring.size()), plan.cell(s, x), plan.cell(s, y));
        for (const auto& [x, y] : ring_edges(sr.across))
            shares.add(link(s, x, y, sr.across.size()), plan.cell(s, x), plan.cell(s, y));
    }
    auto ring_figures = [&](int s, const std::vector<int>& members) {
        RingFigures f;
        for (const auto& [x, y] : ring_edges(members)) {
            const LinkFigures l = link(s, x, y, members.size());
            f.problem = link_problem(model, l, plan.cell(s, x), plan.cell(s, y));
            if (!f.problem.empty()) return f;
            f.bw = std::min(f.bw, effective_Bps(l, plan.cell(s, x), plan.cell(s, y), shares));
            f.lat = std::max(f.lat, l.latency_s);
        }
        return f;
    };

    for (int s = 0; s < P; ++s) {
        const StageRings& sr = rings[static_cast<size_t>(s)];
        const double grad =
            payload.pseudo_gradients ? stage_pseudo_gradient_bytes(plan, s) : stage_gradient_bytes(plan, s);
        double t = 0;
        if (sr.across.empty()) {
            // Independent rings (one, unless DiLoCo's per-site ones): the slowest decides.
            for (const auto& ring : sr.inside) {
                const RingFigures f = ring_figures(s, ring);
                if (!f.problem.empty()) return {f.problem, {}};
                const int n = static_cast<int>(ring.size());
                if (n > 1) t = std::max(t, ring_allreduce_s(grad, n, f.bw, f.lat));
            }
        } else {
            // Reduce-scatter inside each cluster, all-reduce of the shards across clusters,
            // all-gather inside.
            double inside = 0;
            int smallest = D;
            for (const auto& group : sr.inside) {
                const int n = static_cast<int>(group.size());
                const RingFigures f = ring_figures(s, group);
                if (!f.problem.empty()) return {f.problem, {}};
                if (n > 1) inside = std::max(inside, ring_half_s(grad, n, f.bw, f.lat));
                smallest = std::min(smallest, n);
            }
            const int C = static_cast<int>(sr.across.size());
            double wan_min = INFINITY, nic_min = INFINITY, lat_max = 0;
            for (const auto& [x, y] : ring_edges(sr.across)) {
                const LinkFigures l = link(s, x, y, sr.across.size());
                std::string why = link_problem(model, l, plan.cell(s, x), plan.cell(s, y));
                if (!why.empty()) return {std::move(why), {}};
                // An edge that stays inside a cluster (the one-site estimate of a DiLoCo outer
                // step) has no WAN share: its NIC alone limits it.
                if (l.wan_Bps > 0) wan_min = std::min(wan_min, shares.wan.per_crossing_Bps(l.a, l.b, l.route));
                nic_min = std::min(nic_min, l.nic_Bps);
                lat_max = std::max(lat_max, l.latency_s);
            }
            // The shard rings run in parallel, one per member of the smallest group, each over
            // its own NIC; together they cannot beat the WAN path.
            const double across = std::max(ring_allreduce_s(grad, C, wan_min, lat_max),
                                           ring_allreduce_s(grad / smallest, C, nic_min, 0.0));
            // The pseudo-gradient is the same on every member of a site (they trained in step),
            // so each member takes its shard without a reduce-scatter; the all-gather remains.
            t = (payload.pseudo_gradients ? 1.0 : 2.0) * inside + across;
        }
        out.allreduce_s[static_cast<size_t>(s)] = t;
    }
    return out;
}

}  // namespace

DataParallelTimes dp_allreduce_times(const CostModel& model, const Plan& plan, bool single_site) {
    std::vector<StageRings> rings;
    for (int s = 0; s < plan.pp; ++s) rings.push_back(rings_of(plan, s, single_site));
    return allreduce_times(model, plan, rings, Payload{}, single_site);
}

DataParallelTimes outer_allreduce_times(const CostModel& model, const Plan& plan, bool single_site) {
    std::vector<StageRings> rings;
    for (int s = 0; s < plan.pp; ++s) {
        StageRings sr;
        sr.inside = dp_groups(plan, s);
        if (sr.inside.size() >= 2) {
            for (const auto& g : sr.inside) sr.across.push_back(g.front());
        } else {
            sr.inside.clear();   // one site: nothing to average, no outer all-reduce
        }
        rings.push_back(std::move(sr));
    }
    return allreduce_times(model, plan, rings, Payload{true}, single_site);
}

double dp_exposed_s(const CostOptions& options, const Plan& plan, const std::vector<double>& allreduce_s,
                    const CellTimes& cells) {
    const int P = plan.pp, D = plan.dp;
    if (D <= 1) return 0;
    double backward_max = 0;
    for (double b : cells.backward_s) backward_max = std::max(backward_max, b);
    double exposed = 0;
    for (int s = 0; s < P; ++s) {
        const double t = allreduce_s[static_cast<size_t>(s)];
        double stage_backward = 0;
        for (int r = 0; r < D; ++r) stage_backward = std::max(stage_backward, cells.backward_s[static_cast<size_t>(s) * D + r]);
        // Up to dp_overlap of it hides behind the last micro-batch's backward; a stage also
        // finishes s backward steps before stage 0 ends the iteration.
        const double hidden = std::min(options.dp_overlap * t, stage_backward);
        exposed = std::max(exposed, std::max(0.0, t - hidden - s * backward_max));
    }
    return exposed;
}

}  // namespace spiderflow::cost
