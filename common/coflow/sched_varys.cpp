// `varys`: M. Chowdhury, Y. Zhong, I. Stoica, "Efficient Coflow Scheduling with Varys",
// SIGCOMM 2014. Clairvoyant inter-coflow scheduling:
//  - SEBF (smallest effective bottleneck first): order coflows by Gamma, the time the coflow
//    would need alone = max over links of (its remaining bytes on the link / link capacity);
//  - MADD (minimum allocation for desired duration): in that order, give each flow of a coflow
//    remaining / Gamma' (Gamma' on the residual capacity) so all its flows finish together and
//    no bandwidth is wasted on flows that would only wait for the slowest one;
//  - leftover bandwidth is handed out work-conservingly (the paper's backfilling).
// The paper's starvation guard (periodic all-coflow fair slot) is not modelled.
#include <algorithm>
#include <numeric>

#include "common/coflow/allocation.h"
#include "common/coflow/schedulers.h"

namespace spiderflow::coflow {
namespace {

class VarysScheduler final : public Scheduler {
public:
    std::string name() const override { return "varys"; }
    void allocate(SchedView& view) override {
        auto& flows = *view.flows;
        const auto& coflows = *view.coflows;
        for (auto& f : flows) f.rate = 0;
        const std::vector<double> cap = full_capacity(*view.net);
        std::vector<double> gamma(coflows.size());
        for (size_t c = 0; c < coflows.size(); ++c) gamma[c] = bottleneck_time(flows, coflows[c].flows, cap);
        std::vector<size_t> order(coflows.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
            return gamma[a] != gamma[b] ? gamma[a] < gamma[b] : coflows[a].id < coflows[b].id;
        });
        std::vector<double> residual = cap;
        for (size_t c : order) madd_fill(flows, coflows[c].flows, residual);
        backfill(view, residual);
    }
};

}  // namespace

std::unique_ptr<Scheduler> make_varys_scheduler() { return std::make_unique<VarysScheduler>(); }

}  // namespace spiderflow::coflow
