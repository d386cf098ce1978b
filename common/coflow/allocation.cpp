#include "common/coflow/allocation.h"

#include <algorithm>
#include <limits>

namespace spiderflow::coflow {

namespace {
// Below this many bytes/s a link counts as full; far under any real link (kB/s).
constexpr double kRateEps = 1e-3;
}

std::vector<double> full_capacity(const Network& net) {
    std::vector<double> cap(static_cast<size_t>(net.num_links()));
    for (int l = 0; l < net.num_links(); ++l) cap[l] = net.link(l).capacity_Bps;
    return cap;
}

void maxmin_fill(std::vector<ActiveFlow>& flows, const std::vector<int>& subset, std::vector<double>& residual) {
    // Scratch reused across calls: this runs at every simulator event.
    thread_local std::vector<int> count;
    thread_local std::vector<int> touched;
    if (count.size() < residual.size()) count.assign(residual.size(), 0);
    std::vector<int> live;
    live.reserve(subset.size());
    for (int f : subset) {
        bool ok = true;
        for (int l : *flows[f].path)
            if (residual[l] <= kRateEps) ok = false;
        if (ok) live.push_back(f);
    }
    while (!live.empty()) {
        touched.clear();
        for (int f : live)
            for (int l : *flows[f].path)
                if (count[l]++ == 0) touched.push_back(l);
        double delta = std::numeric_limits<double>::infinity();
        for (int l : touched) delta = std::min(delta, residual[l] / count[l]);
        for (int f : live) flows[f].rate += delta;
        for (int l : touched) {
            residual[l] -= delta * count[l];
            if (residual[l] < kRateEps) residual[l] = 0;   // saturated: rounding must not leave crumbs
            count[l] = 0;
        }
        // Flows crossing a saturated link are frozen.
        std::erase_if(live, [&](int f) {
            for (int l : *flows[f].path)
                if (residual[l] <= kRateEps) return true;
            return false;
        });
    }
}

double bottleneck_time(const std::vector<ActiveFlow>& flows, const std::vector<int>& subset,
                       const std::vector<double>& cap) {
    thread_local std::vector<double> load;
    thread_local std::vector<int> touched;
    if (load.size() < cap.size()) load.assign(cap.size(), 0);
    touched.clear();
    for (int f : subset)
        for (int l : *flows[f].path) {
            if (load[l] == 0) touched.push_back(l);
            load[l] += flows[f].remaining;
        }
    double gamma = 0;
    for (int l : touched) {
        gamma = std::max(gamma, cap[l] <= kRateEps ? std::numeric_limits<double>::infinity() : load[l] / cap[l]);
        load[l] = 0;
    }
    return gamma;
}

bool madd_fill(std::vector<ActiveFlow>& flows, const std::vector<int>& subset, std::vector<double>& residual) {
    if (subset.empty()) return true;
    const double gamma = bottleneck_time(flows, subset, residual);
    if (!(gamma < std::numeric_limits<double>::infinity()) || gamma <= 0) return false;
    for (int f : subset) {
        const double r = flows[f].remaining / gamma;
        flows[f].rate += r;
        for (int l : *flows[f].path) residual[l] = std::max(0.0, residual[l] - r);
    }
    return true;
}

void backfill(SchedView& view, std::vector<double>& residual) {
    std::vector<int> all(view.flows->size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
    maxmin_fill(*view.flows, all, residual);
}

std::pair<std::vector<int>, std::vector<int>> greedy_matching(const std::vector<ActiveFlow>& flows,
                                                              const std::vector<int>& subset, int num_links) {
    std::vector<int> order = subset;
    // Largest first: the coflow finishes with its slowest flow.
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return flows[a].remaining > flows[b].remaining; });
    std::vector<char> used(static_cast<size_t>(num_links), 0);
    std::vector<int> admitted, rest;
    for (int f : order) {
        bool free = true;
        for (int l : *flows[f].path)
            if (used[l]) free = false;
        if (!free) {
            rest.push_back(f);
            continue;
        }
        for (int l : *flows[f].path) used[l] = 1;
        admitted.push_back(f);
    }
    return {admitted, rest};
}

}  // namespace spiderflow::coflow
