#include "common/planner/baselines/published/published.h"

#include <cstdio>
#include <string>
#include <utility>

#include "common/cost/cost_model.h"
#include "common/planner/baselines/genetic/genetic.h"
#include "common/planner/baselines/global_ilp/global_ilp.h"
#include "common/planner/baselines/greedy/greedy.h"
#include "common/util/errors.h"

namespace spiderflow {
namespace {

class AsPublished final : public PlannerPolicy {
public:
    AsPublished(std::string name, std::unique_ptr<PlannerPolicy> search)
        : name_(std::move(name)), search_(std::move(search)) {}
    std::string name() const override { return name_; }

    PlanResult plan(const PlanRequest& request, const CostModel& cost) const override {
        const Topology view = oblivious_view(cost.topology());
        CostOptions own_options = cost.options();
        own_options.link_sharing = false;
        own_options.scaling_efficiency = false;
        const CostModel own(view, cost.catalog(), own_options);
        PlanResult r = search_->plan(request, own);
        const double believed = r.plan.prediction.iteration_s;
        r.plan.policy = name_;
        r.plan.prediction = cost.estimate(r.plan);
        if (r.runner_up) {
            r.runner_up->policy = name_;
            r.runner_up->prediction = cost.estimate(*r.runner_up);
        }
        if (!r.plan.prediction.feasible)
            throw InfeasibleError(name_ + "'s plan, made on its own model, does not run on this federation: " +
                                  r.plan.prediction.infeasible_reason);
        char buf[160];
        std::snprintf(buf, sizeof buf, "%s decided on its own model (%.3f s per iteration there; %.3f s on this federation)",
                      name_.c_str(), believed, r.plan.prediction.iteration_s);
        r.note = r.note.empty() ? std::string(buf) : std::string(buf) + "; " + r.note;
        return r;
    }

private:
    std::string name_;
    std::unique_ptr<PlannerPolicy> search_;
};

}  // namespace

Topology oblivious_view(const Topology& real) {
    Topology view = real;
    for (Cluster& c : view.clusters) {
        double sum = 0;
        for (const Node& n : c.nodes) sum += n.network_Bps() > 0 ? n.network_Bps() : c.intra_bandwidth_Bps;
        if (!c.nodes.empty() && sum > 0) c.intra_bandwidth_Bps = sum / static_cast<double>(c.nodes.size());
        c.switches.clear();
        for (Node& n : c.nodes) {
            n.nics.clear();
            n.gpu_slots.clear();
            n.leaf_switch.clear();
        }
    }
    view.finalize(real.name);
    return view;
}

std::unique_ptr<PlannerPolicy> make_genetic_dtfm() { return std::make_unique<AsPublished>("genetic-dtfm", make_genetic()); }
std::unique_ptr<PlannerPolicy> make_ilp_oblivious() {
    return std::make_unique<AsPublished>("ilp-oblivious", make_global_ilp());
}
std::unique_ptr<PlannerPolicy> make_greedy_atlas() { return std::make_unique<AsPublished>("greedy-atlas", make_greedy()); }

}  // namespace spiderflow
