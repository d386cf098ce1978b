#include "common/planner/baselines/first_fit/first_fit.h"

#include "common/plan/sequential_layout.h"
#include "common/planner/baselines/common/evaluator.h"
#include "common/util/errors.h"

namespace spiderflow {

PlanResult FirstFitPolicy::plan(const PlanRequest& request, const CostModel& cost) const {
    baselines::Evaluator eval(request, cost, name(), 60.0);
    baselines::BestKeeper keeper(eval);
    const Topology& topo = cost.topology();
    const bool all_clusters = eval.eligible().size() == topo.clusters.size();
    for (const Shape& s : eval.shapes()) {
        Plan p;
        if (all_clusters) {
            try {
                p = make_sequential_plan(topo, request.job, s.tp, s.pp, s.dp, s.micro_batch);
            } catch (const InfeasibleError&) {
                continue;  // not enough tp-wide slots for this shape
            } catch (const InputError&) {
                continue;
            }
            p.policy = name();
            p = eval.evaluate(std::move(p));
        } else {
            // Allowed/forbidden clusters: the same fill over the eligible clusters only.
            std::vector<int> cells;
            const auto cap = eval.capacity(s.tp);
            size_t k = 0;
            int used = 0;
            for (int i = 0; i < s.pp * s.dp; ++i) {
                while (k < cap.size() && used >= cap[k]) {
                    ++k;
                    used = 0;
                }
                if (k >= cap.size()) break;
                cells.push_back(eval.eligible()[k]);
                ++used;
            }
            if (static_cast<int>(cells.size()) != s.pp * s.dp) continue;
            p = eval.realise_plain(s, cells);
        }
        keeper.offer(p, baselines::layout_key(p));
        if (eval.out_of_time()) break;
    }
    return keeper.result(eval, "clusters filled in order, layers split evenly", false);
}

std::unique_ptr<PlannerPolicy> make_first_fit() { return std::make_unique<FirstFitPolicy>(); }

}  // namespace spiderflow
