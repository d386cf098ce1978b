// `sincronia`: S. Agarwal, S. Rajakrishnan, A. Narayan, R. Agarwal, D. Shmoys, A. Vahdat,
// "Sincronia: Near-Optimal Network Design for Coflows", SIGCOMM 2018.
// BSSI (Bottleneck-Select-Scale-Iterate) orders the unfinished coflows from last to first:
// pick the most loaded link b; among coflows using b, the one with the smallest weight per
// unit of load on b goes last; every other coflow's weight is scaled down by what that coflow
// "paid" on b; repeat. Sincronia then only sets priorities and leaves rates to a
// priority-enabled transport, which we model as strict priority across coflows with
// max-min sharing inside each coflow on what higher-priority coflows left.
// Loads are in seconds (bytes / capacity) so links of different speeds compare.
#include <algorithm>
#include <limits>

#include "common/coflow/allocation.h"
#include "common/coflow/schedulers.h"

namespace spiderflow::coflow {

// Exposed for tests: the BSSI order (indices into coflows), first = highest priority.
std::vector<int> bssi_order(const std::vector<ActiveFlow>& flows, const std::vector<ActiveCoflow>& coflows,
                            const Network& net) {
    const int n = static_cast<int>(coflows.size());
    // Sparse per-coflow loads: (link, seconds).
    std::vector<std::vector<std::pair<int, double>>> load(n);
    std::vector<double> link_total(static_cast<size_t>(net.num_links()), 0);
    std::vector<double> tmp(static_cast<size_t>(net.num_links()), 0);
    for (int c = 0; c < n; ++c) {
        std::vector<int> touched;
        for (int f : coflows[c].flows)
            for (int l : *flows[f].path) {
                if (tmp[l] == 0) touched.push_back(l);
                tmp[l] += flows[f].remaining / net.link(l).capacity_Bps;
            }
        for (int l : touched) {
            load[c].emplace_back(l, tmp[l]);
            link_total[l] += tmp[l];
            tmp[l] = 0;
        }
    }
    // Per link, the coflows on it with their load there (their first entry, as a lookup by
    // link finds it), in coflow order: each step visits the bottleneck's coflows only, where
    // a scan of every coflow's links made the ordering quadratic in the coflows in flight.
    const size_t nl = static_cast<size_t>(net.num_links());
    std::vector<int> first(nl + 1, 0);
    std::vector<int> seen(nl, -1);
    for (int c = 0; c < n; ++c)
        for (const auto& [l, v] : load[c])
            if (seen[l] != c) {
                seen[l] = c;
                ++first[static_cast<size_t>(l) + 1];
            }
    for (size_t l = 0; l < nl; ++l) first[l + 1] += first[l];
    std::vector<int> cursor(first.begin(), first.end() - 1);
    std::vector<std::pair<int, double>> on_link(static_cast<size_t>(first[nl]));
    std::fill(seen.begin(), seen.end(), -1);
    for (int c = 0; c < n; ++c)
        for (const auto& [l, v] : load[c])
            if (seen[l] != c) {
                seen[l] = c;
                on_link[static_cast<size_t>(cursor[l]++)] = {c, v};
            }
    std::vector<double> weight(n, 1.0);
    std::vector<char> left(n, 1);
    std::vector<int> order(n);
    for (int pos = n - 1; pos >= 0; --pos) {
        int b = -1;
        for (int l = 0; l < net.num_links(); ++l)
            if (link_total[l] > 0 && (b < 0 || link_total[l] > link_total[b])) b = l;
        int last = -1;
        double best = std::numeric_limits<double>::infinity();
        double d_last = 0;
        if (b >= 0) {
            for (int k = first[b]; k < first[b + 1]; ++k) {
                const auto [c, d] = on_link[static_cast<size_t>(k)];
                if (!left[c] || d <= 0) continue;
                const double ratio = weight[c] / d;
                // Ties: the later-released coflow goes last.
                if (ratio < best || (ratio == best && coflows[c].id > coflows[last].id)) {
                    best = ratio;
                    last = c;
                    d_last = d;
                }
            }
        }
        if (last < 0) {  // only load-free coflows remain: any order, keep ids ascending
            for (int c = n - 1; c >= 0; --c)
                if (left[c]) { last = c; break; }
        } else {
            // Coflows off b pay nothing on it: their weights stay as they are.
            for (int k = first[b]; k < first[b + 1]; ++k) {
                const auto [c, d] = on_link[static_cast<size_t>(k)];
                if (left[c] && c != last) weight[c] -= weight[last] * d / d_last;
            }
        }
        left[last] = 0;
        order[pos] = last;
        for (const auto& [l, v] : load[last]) link_total[l] = std::max(0.0, link_total[l] - v);
    }
    return order;
}

namespace {

class SincroniaScheduler final : public Scheduler {
public:
    std::string name() const override { return "sincronia"; }
    void allocate(SchedView& view) override {
        auto& flows = *view.flows;
        for (auto& f : flows) f.rate = 0;
        std::vector<double> residual = full_capacity(*view.net);
        for (int c : bssi_order(flows, *view.coflows, *view.net)) maxmin_fill(flows, (*view.coflows)[c].flows, residual);
    }
};

}  // namespace

std::unique_ptr<Scheduler> make_sincronia_scheduler() { return std::make_unique<SincroniaScheduler>(); }

}  // namespace spiderflow::coflow
