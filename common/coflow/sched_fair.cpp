// `fair`: per-flow max-min fair sharing, i.e. what TCP or NCCL's own transport gives each flow
// when nobody schedules coflows. The baseline every other scheduler is compared against.
#include "common/coflow/allocation.h"
#include "common/coflow/schedulers.h"

namespace spiderflow::coflow {
namespace {

class FairScheduler final : public Scheduler {
public:
    std::string name() const override { return "fair"; }
    void allocate(SchedView& view) override {
        for (auto& f : *view.flows) f.rate = 0;
        std::vector<double> residual = full_capacity(*view.net);
        backfill(view, residual);
    }
};

}  // namespace

std::unique_ptr<Scheduler> make_fair_scheduler() { return std::make_unique<FairScheduler>(); }

}  // namespace spiderflow::coflow
