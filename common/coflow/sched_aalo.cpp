// `aalo`: M. Chowdhury, I. Stoica, "Efficient Coflow Scheduling Without Prior Knowledge",
// SIGCOMM 2015. D-CLAS (discretised coflow-aware least-attained service): a coflow sits in
// queue q while the bytes it has sent so far are below 10 MB * 10^q (K = 10 queues,
// exponentially spaced, the paper's defaults); it moves down as it sends. Coflows of one queue
// are served FIFO (by arrival); queues share each link by weight (higher queues more: weight
// K - q), which keeps low queues from starving. No flow sizes are used.
// Leftover capacity is then shared max-min (work conservation).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "common/coflow/allocation.h"
#include "common/coflow/schedulers.h"

namespace spiderflow::coflow {

constexpr int kAaloQueues = 10;
constexpr double kAaloFirstThreshold = 10e6;   // bytes
constexpr double kAaloGrowth = 10;

int aalo_queue(double sent_bytes) {
    double limit = kAaloFirstThreshold;
    for (int q = 0; q < kAaloQueues - 1; ++q, limit *= kAaloGrowth)
        if (sent_bytes < limit) return q;
    return kAaloQueues - 1;
}

namespace {

double queue_limit(int q) { return kAaloFirstThreshold * std::pow(kAaloGrowth, q); }

class AaloScheduler final : public Scheduler {
public:
    std::string name() const override { return "aalo"; }

    void allocate(SchedView& view) override {
        auto& flows = *view.flows;
        const auto& coflows = *view.coflows;
        const Network& net = *view.net;
        for (auto& f : flows) f.rate = 0;
        std::vector<std::vector<int>> queues(kAaloQueues);
        for (size_t c = 0; c < coflows.size(); ++c) queues[aalo_queue(coflows[c].sent_bytes)].push_back(static_cast<int>(c));
        // Weight of the queues present on each link.
        std::vector<double> wsum(static_cast<size_t>(net.num_links()), 0);
        std::vector<std::vector<char>> present(kAaloQueues);
        for (int q = 0; q < kAaloQueues; ++q) {
            if (queues[q].empty()) continue;
            present[q].assign(static_cast<size_t>(net.num_links()), 0);
            for (int c : queues[q])
                for (int f : coflows[c].flows)
                    for (int l : *flows[f].path) present[q][l] = 1;
            for (int l = 0; l < net.num_links(); ++l)
                if (present[q][l]) wsum[l] += kAaloQueues - q;
        }
        std::vector<double> residual = full_capacity(net);
        for (int q = 0; q < kAaloQueues; ++q) {
            if (queues[q].empty()) continue;
            std::vector<double> share(static_cast<size_t>(net.num_links()), 0);
            for (int l = 0; l < net.num_links(); ++l)
                if (present[q][l]) share[l] = net.link(l).capacity_Bps * (kAaloQueues - q) / wsum[l];
            auto fifo = queues[q];
            std::stable_sort(fifo.begin(), fifo.end(), [&](int a, int b) {
                return coflows[a].release_s != coflows[b].release_s ? coflows[a].release_s < coflows[b].release_s
                                                                    : coflows[a].id < coflows[b].id;
            });
            for (int c : fifo) maxmin_fill(flows, coflows[c].flows, share);
            for (int l = 0; l < net.num_links(); ++l)
                if (present[q][l]) residual[l] -= net.link(l).capacity_Bps * (kAaloQueues - q) / wsum[l] - share[l];
        }
        for (auto& r : residual) r = std::max(0.0, r);
        backfill(view, residual);
    }

    // Rates change when a coflow crosses its queue's threshold.
    double review_after(const SchedView& view) const override {
        double dt = std::numeric_limits<double>::infinity();
        for (const auto& c : *view.coflows) {
            const int q = aalo_queue(c.sent_bytes);
            if (q == kAaloQueues - 1) continue;
            double rate = 0;
            for (int f : c.flows) rate += (*view.flows)[f].rate;
            if (rate > 0) dt = std::min(dt, (queue_limit(q) - c.sent_bytes) / rate);
        }
        return std::max(dt, 0.0);
    }
};

}  // namespace

std::unique_ptr<Scheduler> make_aalo_scheduler() { return std::make_unique<AaloScheduler>(); }

}  // namespace spiderflow::coflow
