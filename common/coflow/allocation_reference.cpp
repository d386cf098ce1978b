// The straightforward max-min filling and bottleneck time the simulator used before the
// versions in allocation.cpp: one heap entry per level change (stale ones skipped by version),
// one pass per flow, sums through memory. Kept as the reference the optimised path must
// reproduce bit for bit
// (tests/unit/common/coflow/test_allocation_equivalence.cpp, SimOptions::reference_allocation).
#include <algorithm>
#include <limits>
#include <tuple>

#include "common/coflow/allocation.h"

namespace spiderflow::coflow {

void maxmin_fill_reference(std::vector<ActiveFlow>& flows, const std::vector<int>& subset, std::vector<double>& residual) {
    // Water-filling: all unfrozen flows rise together; the link whose level (residual capacity
    // not yet claimed by frozen flows / its unfrozen flows) is lowest saturates first and
    // freezes its flows at that level. Levels never fall, so a heap of link levels (stale
    // entries skipped by version) finds each bottleneck in O(log links):
    // O((flows x path + links) log links) per call. Scratch is reused across calls: this runs
    // at every simulator event.
    thread_local std::vector<int> unfrozen, size, first, version, cursor, members, touched;
    thread_local std::vector<double> claimed;
    const size_t nl = residual.size();
    if (unfrozen.size() < nl) {
        unfrozen.assign(nl, 0);
        size.assign(nl, 0);
        first.assign(nl, 0);
        version.assign(nl, 0);
        cursor.assign(nl, 0);
        claimed.assign(nl, 0);
    }
    thread_local std::vector<int> live, affected;
    thread_local std::vector<char> frozen, marked;
    if (marked.size() < nl) marked.assign(nl, 0);
    using Entry = std::tuple<double, int, int>;   // level, link, version
    thread_local std::vector<Entry> heap;         // a min-heap through std::push_heap/pop_heap
    live.clear();
    for (int f : subset) {
        bool ok = true;
        for (int l : *flows[f].path)
            if (residual[l] <= kRateEps) ok = false;
        if (ok) live.push_back(f);
    }
    if (live.empty()) return;
    touched.clear();
    for (int f : live)
        for (int l : *flows[f].path)
            if (size[l]++ == 0) touched.push_back(l);
    int offset = 0;
    for (int l : touched) {
        first[l] = cursor[l] = offset;
        offset += size[l];
        unfrozen[l] = size[l];
        claimed[l] = 0;
    }
    members.assign(static_cast<size_t>(offset), 0);
    for (size_t i = 0; i < live.size(); ++i)
        for (int l : *flows[live[i]].path) members[cursor[l]++] = static_cast<int>(i);

    frozen.assign(live.size(), 0);
    const auto later = std::greater<Entry>();
    heap.clear();
    for (int l : touched) heap.emplace_back(residual[l] / unfrozen[l], l, version[l]);
    std::make_heap(heap.begin(), heap.end(), later);
    while (!heap.empty()) {
        std::pop_heap(heap.begin(), heap.end(), later);
        const auto [level, l, v] = heap.back();
        heap.pop_back();
        if (v != version[l] || unfrozen[l] == 0) continue;
        const double lambda = std::max(0.0, level);
        affected.clear();
        for (int k = first[l]; k < first[l] + size[l]; ++k) {
            const int i = members[k];
            if (frozen[i]) continue;
            frozen[i] = 1;
            flows[live[i]].rate += lambda;
            for (int l2 : *flows[live[i]].path) {
                claimed[l2] += lambda;
                --unfrozen[l2];
                if (l2 != l && !marked[l2]) {
                    marked[l2] = 1;
                    affected.push_back(l2);
                }
            }
        }
        ++version[l];
        // One fresh entry per link whose level moved, however many of its flows froze here:
        // many flows of one bottleneck often share their other link (a big switch's port).
        for (int l2 : affected) {
            marked[l2] = 0;
            ++version[l2];
            if (unfrozen[l2] > 0) {
                heap.emplace_back((residual[l2] - claimed[l2]) / unfrozen[l2], l2, version[l2]);
                std::push_heap(heap.begin(), heap.end(), later);
            }
        }
    }
    for (int l : touched) {
        residual[l] -= claimed[l];
        if (residual[l] < kRateEps) residual[l] = 0;   // saturated: rounding must not leave crumbs
        size[l] = 0;
    }
}

double bottleneck_time_reference(const std::vector<ActiveFlow>& flows, const std::vector<int>& subset,
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

}  // namespace spiderflow::coflow
