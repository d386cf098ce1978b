#include "common/planner/baselines/greedy/greedy.h"

#include <algorithm>
#include <set>

#include "common/planner/baselines/common/evaluator.h"
#include "common/planner/stage_fill.h"

namespace spiderflow {
namespace {

// The cluster chain: most compute first, then widest path from the last one taken.
std::vector<int> chain(baselines::Evaluator& eval, int tp) {
    const Topology& topo = eval.topology();
    std::vector<int> pool = eval.clusters_by_compute(tp);  // compute order breaks ties
    std::vector<int> out;
    if (pool.empty()) return out;
    out.push_back(pool.front());
    std::set<int> taken{pool.front()};
    while (out.size() < pool.size()) {
        const int last = out.back();
        int pick = -1;
        double best_bw = -1;
        for (int c : pool) {
            if (taken.count(c)) continue;
            const double bw = topo.path(last, c).bandwidth_Bps;
            if (bw > best_bw) {
                best_bw = bw;
                pick = c;
            }
        }
        out.push_back(pick);
        taken.insert(pick);
    }
    return out;
}

std::vector<int> assign(baselines::Evaluator& eval, const Shape& s, const std::vector<int>& order) {
    std::vector<std::pair<int, int>> slots;
    for (int c : order) slots.emplace_back(c, eval.slots_of(s.tp, c));
    return fill_whole_stages(slots, s.pp, s.dp);
}

}  // namespace

PlanResult GreedyPolicy::plan(const PlanRequest& request, const CostModel& cost) const {
    baselines::Evaluator eval(request, cost, name(), 60.0);
    baselines::BestKeeper keeper(eval);
    std::map<int, std::vector<int>> chains;
    for (const Shape& s : eval.shapes()) {
        auto it = chains.find(s.tp);
        if (it == chains.end()) it = chains.emplace(s.tp, chain(eval, s.tp)).first;
        const std::vector<int> cells = assign(eval, s, it->second);
        if (cells.empty()) continue;
        const Plan p = eval.realise(s, cells);
        keeper.offer(p, baselines::layout_key(p));
        if (eval.out_of_time()) break;
    }
    return keeper.result(eval, "Atlas-style greedy: whole stages per cluster along the widest-link chain");
}

std::unique_ptr<PlannerPolicy> make_greedy() { return std::make_unique<GreedyPolicy>(); }

}  // namespace spiderflow
