#include "common/planner/tpa/level2.h"

#include <algorithm>
#include <cmath>
#include <future>
#include <numeric>

#include "common/milp/cbc_backend.h"

namespace spiderflow::tpa {
namespace {

using Counts = std::vector<std::vector<int>>;  // [stage][group] cells

// Hands out concrete slots: per group, stages in order take consecutive slots, so the replicas
// of one stage sit on neighbouring nodes (DP inside a leaf switch) and stage s+1 follows s.
Placement realise(const ClusterInventory& inv, const Counts& x, size_t stages) {
    Placement p;
    p.ok = true;
    p.stage_slots.assign(stages, {});
    p.stage_flops.assign(stages, 0.0);
    p.stage_memory.assign(stages, 0.0);
    p.owned_layers.assign(stages, -1);
    std::vector<size_t> next(inv.groups.size(), 0);
    for (size_t s = 0; s < stages; ++s)
        for (size_t g = 0; g < inv.groups.size(); ++g) {
            const int n = x[s][g];
            if (n <= 0) continue;
            const SlotGroup& group = inv.groups[g];
            for (int i = 0; i < n; ++i) p.stage_slots[s].push_back(group.slots[next[g]++]);
            p.stage_flops[s] = p.stage_flops[s] > 0 ? std::min(p.stage_flops[s], group.flops) : group.flops;
            p.stage_memory[s] = p.stage_memory[s] > 0 ? std::min(p.stage_memory[s], group.memory_bytes)
                                                      : group.memory_bytes;
        }
    return p;
}

Placement fail(std::string why) {
    Placement p;
    p.ok = false;
    p.why = std::move(why);
    return p;
}

// Heaviest stages first onto the fastest type that holds all their cells and their memory;
// spill over types only when no single type can.
Placement place_greedy(const ClusterInventory& inv, const ClusterDemand& demand, const std::vector<int>& layers,
                       const MemoryModel& memory) {
    const size_t stages = demand.stage_cells.size();
    const size_t groups = inv.groups.size();
    Counts x(stages, std::vector<int>(groups, 0));
    std::vector<int> free(groups);
    for (size_t g = 0; g < groups; ++g) free[g] = static_cast<int>(inv.groups[g].slots.size());
    std::vector<size_t> order;
    for (size_t s = 0; s < stages; ++s)
        if (demand.stage_cells[s] > 0) order.push_back(s);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return layers[a] > layers[b];
    });
    for (size_t s : order) {
        int need = demand.stage_cells[s];
        const double bytes = memory.stage_bytes(static_cast<int>(s), layers[s]);
        bool whole = false;
        for (size_t g = 0; g < groups && !whole; ++g)
            if (free[g] >= need && inv.groups[g].memory_bytes >= bytes) {
                x[s][g] = need;
                free[g] -= need;
                whole = true;
            }
        if (whole) continue;
        for (size_t g = 0; g < groups && need > 0; ++g) {
            if (inv.groups[g].memory_bytes < bytes) continue;
            const int take = std::min(need, free[g]);
            x[s][g] += take;
            free[g] -= take;
            need -= take;
        }
        if (need > 0)
            return fail("cluster " + std::to_string(inv.cluster) + ": stage " + std::to_string(s) +
                        " does not fit (memory or slots)");
    }
    return realise(inv, x, stages);
}

Placement place_ilp(const ClusterInventory& inv, const ClusterDemand& demand, const std::vector<int>& layers,
                    const MemoryModel& memory, int dp, const milp::SolveOptions& solver) {
    const size_t stages = demand.stage_cells.size();
    const size_t groups = inv.groups.size();
    const double v_max = inv.groups.front().flops;
    int owned_total = 0;
    int layer_bound = 0;
    for (size_t s = 0; s < stages; ++s) {
        if (demand.stage_cells[s] == dp) owned_total += layers[s];
        if (demand.stage_cells[s] > 0) layer_bound = std::max(layer_bound, layers[s]);
    }
    layer_bound = std::max(layer_bound, owned_total);
    double c_max = 1;
    for (const SlotGroup& g : inv.groups) c_max = std::max(c_max, v_max / g.flops);
    const double big = layer_bound * c_max + 1;

    milp::Model m;
    const int t = m.add_continuous(0, big, "T");
    m.set_objective(t, 1.0);
    std::vector<std::vector<int>> xv(stages, std::vector<int>(groups, -1)), zv = xv;
    std::vector<int> yv(stages, -1);
    std::vector<milp::Term> owned_sum;
    for (size_t s = 0; s < stages; ++s) {
        const int k = demand.stage_cells[s];
        if (k <= 0) continue;
        const bool owned = k == dp;
        if (owned) {
            yv[s] = m.add_integer(1, owned_total, "y" + std::to_string(s));
            owned_sum.push_back({yv[s], 1});
        }
        std::vector<milp::Term> cover;
        for (size_t g = 0; g < groups; ++g) {
            const SlotGroup& group = inv.groups[g];
            const int max_fit = memory.max_layers(static_cast<int>(s), group.memory_bytes);
            const bool fits = owned ? max_fit >= 1 : max_fit >= layers[s];
            const double ub = fits ? std::min<double>(k, static_cast<double>(group.slots.size())) : 0;
            xv[s][g] = m.add_integer(0, ub);
            zv[s][g] = m.add_variable(0, fits ? 1 : 0, true);
            m.set_objective(zv[s][g], 1e-3);  // prefer one GPU type per stage
            cover.push_back({xv[s][g], 1});
            m.add_less_equal({{xv[s][g], 1}, {zv[s][g], -static_cast<double>(k)}}, 0);
            const double c = v_max / group.flops;
            // c * layers <= T + big * (1 - z): the stage's time on this type bounds T when used.
            if (owned) {
                m.add_less_equal({{yv[s], c}, {t, -1}, {zv[s][g], big}}, big);
                if (fits)  // layers within what this type's memory holds when used
                    m.add_less_equal({{yv[s], 1}, {zv[s][g], static_cast<double>(owned_total)}},
                                     std::min(max_fit, owned_total) + owned_total);
            } else {
                m.add_less_equal({{t, -1}, {zv[s][g], big}}, big - c * layers[s]);
            }
        }
        m.add_equal(cover, k);
    }
    if (!owned_sum.empty()) m.add_equal(owned_sum, owned_total);
    // Megatron-LM runs only equal middle stages (tpa::megatron_split): the middle stages owned
    // here share one count, so the ILP picks GPU types for a split the launcher can write.
    int middle = -1;
    for (size_t s = 1; s + 1 < stages; ++s) {
        if (yv[s] < 0) continue;
        if (middle < 0) middle = yv[s];
        else m.add_equal({{yv[s], 1}, {middle, -1}}, 0);
    }
    for (size_t g = 0; g < groups; ++g) {
        std::vector<milp::Term> use;
        for (size_t s = 0; s < stages; ++s)
            if (xv[s][g] >= 0) use.push_back({xv[s][g], 1});
        m.add_less_equal(use, static_cast<double>(inv.groups[g].slots.size()));
    }

    const milp::SolveResult r = milp::solve(m, solver);
    if (!r.has_solution()) {
        Placement p = fail("cluster " + std::to_string(inv.cluster) + ": level-2 ILP " + milp::to_string(r.status));
        p.used_ilp = true;
        p.status = r.status;
        return p;
    }
    Counts x(stages, std::vector<int>(groups, 0));
    for (size_t s = 0; s < stages; ++s)
        for (size_t g = 0; g < groups; ++g)
            if (xv[s][g] >= 0) x[s][g] = static_cast<int>(std::lround(r.values[static_cast<size_t>(xv[s][g])]));
    Placement p = realise(inv, x, stages);
    p.used_ilp = true;
    p.status = r.status;
    for (size_t s = 0; s < stages; ++s)
        if (yv[s] >= 0) p.owned_layers[s] = static_cast<int>(std::lround(r.values[static_cast<size_t>(yv[s])]));
    return p;
}

}  // namespace

Placement place_in_cluster(const ClusterInventory& inventory, const ClusterDemand& demand,
                           const std::vector<int>& layers, const MemoryModel& memory, int dp,
                           const Level2Options& options) {
    const int need = std::accumulate(demand.stage_cells.begin(), demand.stage_cells.end(), 0);
    if (need > inventory.slots())
        return fail("cluster " + std::to_string(inventory.cluster) + " has " + std::to_string(inventory.slots()) +
                    " slots, needs " + std::to_string(need));
    if (inventory.groups.size() <= 1 || !options.exact) return place_greedy(inventory, demand, layers, memory);
    Placement p = place_ilp(inventory, demand, layers, memory, dp, options.solver);
    if (p.ok) return p;
    // A time limit without a solution is not a verdict; the greedy may still place it.
    Placement g = place_greedy(inventory, demand, layers, memory);
    g.used_ilp = true;
    g.status = p.status;
    return g;
}

std::vector<Placement> place_all(const std::vector<const ClusterInventory*>& inventories,
                                 const std::vector<ClusterDemand>& demands, const std::vector<int>& layers,
                                 const MemoryModel& memory, int dp, const Level2Options& options) {
    std::vector<Placement> out(demands.size());
    // Only mixed-type clusters solve an ILP; those go to worker threads, each writing its own
    // slot of `out`, so the result is the same whatever order the threads finish in.
    std::vector<size_t> heavy;
    for (size_t i = 0; i < demands.size(); ++i) {
        if (options.exact && inventories[i]->groups.size() > 1)
            heavy.push_back(i);
        else
            out[i] = place_in_cluster(*inventories[i], demands[i], layers, memory, dp, options);
    }
    const size_t workers = std::max<size_t>(1, std::min<size_t>(static_cast<size_t>(std::max(1, options.threads)),
                                                                  heavy.size()));
    if (heavy.size() <= 1) {
        for (size_t i : heavy) out[i] = place_in_cluster(*inventories[i], demands[i], layers, memory, dp, options);
        return out;
    }
    std::vector<std::future<void>> jobs;
    for (size_t w = 0; w < workers; ++w)
        jobs.push_back(std::async(std::launch::async, [&, w] {
            for (size_t j = w; j < heavy.size(); j += workers) {
                const size_t i = heavy[j];
                out[i] = place_in_cluster(*inventories[i], demands[i], layers, memory, dp, options);
            }
        }));
    for (auto& j : jobs) j.get();
    return out;
}

}  // namespace spiderflow::tpa
