// `hermod`: "Coflow Scheduling for LLM Training" (SIGCOMM 2025 poster). One coflow per
// collective invocation; strict priority between a job's coflows by micro-batch, type
// (EP > PP > DP) and layer, with the DP early-layer exception (hermod_order.h); coflows of equal
// rank share a tier; tiers are served in order by max-min progressive filling of the residual
// capacity, with a matching-based allocation inside each coflow.
#include "common/coflow/allocation.h"
#include "common/coflow/hermod_order.h"
#include "common/coflow/schedulers.h"

namespace spiderflow::coflow {
namespace {

class HermodScheduler final : public Scheduler {
public:
    std::string name() const override { return "hermod"; }
    void allocate(SchedView& view) override {
        for (auto& f : *view.flows) f.rate = 0;
        std::vector<double> residual = full_capacity(*view.net);
        fill_tiers(view, hermod_tiers(*view.coflows, *view.jobs), residual, order_);
    }

private:
    MatchingOrder order_;
};

}  // namespace

std::unique_ptr<Scheduler> make_hermod_scheduler() { return std::make_unique<HermodScheduler>(); }

}  // namespace spiderflow::coflow
