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
        if (loads_.size() < coflows.size()) loads_.resize(coflows.size());
        gamma_.resize(coflows.size());
        for (size_t c = 0; c < coflows.size(); ++c) {
            link_loads(flows, coflows[c].flows, loads_[c]);
            gamma_[c] = bottleneck_time(loads_[c], cap);
        }
        const auto& gamma = gamma_;
        std::vector<size_t> order(coflows.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
            return gamma[a] != gamma[b] ? gamma[a] < gamma[b] : coflows[a].id < coflows[b].id;
        });
        residual_ = cap;
        for (size_t c : order) madd_fill(flows, coflows[c].flows, loads_[c], residual_);
        backfill(view, residual_);
    }

private:
    // Kept between events: allocate() runs at every one.
    std::vector<double> gamma_, residual_;
    std::vector<LinkLoads> loads_;
};

}  // namespace

std::unique_ptr<Scheduler> make_varys_scheduler() { return std::make_unique<VarysScheduler>(); }

}  // namespace spiderflow::coflow
