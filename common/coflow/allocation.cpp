#include "common/coflow/allocation.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <queue>
#include <tuple>
#include <unordered_map>

namespace spiderflow::coflow {


std::vector<double> full_capacity(const Network& net) {
    std::vector<double> cap(static_cast<size_t>(net.num_links()));
    for (int l = 0; l < net.num_links(); ++l) cap[l] = net.link(l).capacity_Bps;
    return cap;
}

namespace {

thread_local bool reference_maxmin = false;

// Links keyed by (level, link id), one entry per link, smallest first. Keys are unique, so the
// order in which links pop is exactly that of the reference's heap of (level, link, version)
// entries once its stale entries are skipped, while each level change costs one sift instead
// of a new entry: the reference's heap grew to links x bottlenecks entries per call.
class LinkHeap {
public:
    void reset(size_t links) {
        if (pos_.size() < links) {
            pos_.assign(links, -1);
            key_.assign(links, 0);
        }
        heap_.clear();
    }
    bool empty() const { return heap_.empty(); }
    int top() const { return heap_.front(); }
    double key(int l) const { return key_[static_cast<size_t>(l)]; }
    void set(int l, double key) {   // insert, or move an existing entry
        key_[l] = key;
        if (pos_[l] < 0) {
            pos_[l] = static_cast<int>(heap_.size());
            heap_.push_back(l);
        }
        up(pos_[l]);
        down(pos_[l]);
    }
    void erase(int l) {
        const int i = pos_[l];
        if (i < 0) return;
        pos_[l] = -1;
        const int last = heap_.back();
        heap_.pop_back();
        if (last == l) return;
        heap_[i] = last;
        pos_[last] = i;
        up(i);
        down(pos_[last]);
    }

private:
    std::vector<int> heap_, pos_;
    std::vector<double> key_;
    bool before(int a, int b) const { return key_[a] != key_[b] ? key_[a] < key_[b] : a < b; }
    void place(int i, int l) {
        heap_[i] = l;
        pos_[l] = i;
    }
    void up(int i) {
        const int l = heap_[i];
        while (i > 0) {
            const int parent = (i - 1) / 2;
            if (!before(l, heap_[parent])) break;
            place(i, heap_[parent]);
            i = parent;
        }
        place(i, l);
    }
    void down(int i) {
        const int l = heap_[i];
        const int n = static_cast<int>(heap_.size());
        while (true) {
            int child = 2 * i + 1;
            if (child >= n) break;
            if (child + 1 < n && before(heap_[child + 1], heap_[child])) ++child;
            if (!before(heap_[child], l)) break;
            place(i, heap_[child]);
            i = child;
        }
        place(i, l);
    }
};

}  // namespace

void use_reference_maxmin(bool on) { reference_maxmin = on; }
bool using_reference_maxmin() { return reference_maxmin; }

namespace {

constexpr int kUnseen = -1, kDead = -2;
// Per distinct route of the current call: kUnseen, kDead (a full link) or its group index.
thread_local std::vector<int> route_group;

// Numbers the distinct route objects of `subset` 0, 1, ... into `route_of` (per subset entry)
// and sizes route_group to match, all kUnseen. Routes are usually elements of one table
// (Network's), so an address minus the lowest one, in units of the object size, is a small
// number that no two distinct objects share (objects do not overlap): a direct index, no
// hashing. Routes spread over memory fall back to a hash map.
void group_routes(const std::vector<ActiveFlow>& flows, const std::vector<int>& subset, std::vector<int>& route_of) {
    using Route = std::vector<int>;
    thread_local std::vector<int> dense;
    thread_local std::unordered_map<const Route*, int> sparse;
    route_group.clear();
    if (subset.empty()) return;
    const Route* lo = flows[subset[0]].path;
    const Route* hi = lo;
    for (int f : subset) {
        lo = std::min(lo, flows[f].path, std::less<const Route*>());
        hi = std::max(hi, flows[f].path, std::less<const Route*>());
    }
    const auto address = [](const Route* r) { return reinterpret_cast<std::uintptr_t>(r); };
    const std::uintptr_t span = (address(hi) - address(lo)) / sizeof(Route) + 1;
    if (span <= std::max<std::uintptr_t>(1u << 16, 4 * subset.size())) {
        if (dense.size() < span) dense.assign(span, kUnseen);
        for (size_t i = 0; i < subset.size(); ++i) {
            int& id = dense[(address(flows[subset[i]].path) - address(lo)) / sizeof(Route)];
            if (id == kUnseen) id = static_cast<int>(route_group.size()), route_group.push_back(kUnseen);
            route_of[i] = id;
        }
        for (int f : subset) dense[(address(flows[f].path) - address(lo)) / sizeof(Route)] = kUnseen;
        return;
    }
    sparse.clear();
    for (size_t i = 0; i < subset.size(); ++i) {
        auto [it, fresh] = sparse.emplace(flows[subset[i]].path, static_cast<int>(route_group.size()));
        if (fresh) route_group.push_back(kUnseen);
        route_of[i] = it->second;
    }
}

}  // namespace

void maxmin_fill(std::vector<ActiveFlow>& flows, const std::vector<int>& subset, std::vector<double>& residual) {
    if (reference_maxmin) {
        maxmin_fill_reference(flows, subset, residual);
        return;
    }
    // Water-filling as in maxmin_fill_reference(), but over groups of flows that share a route
    // (the same path object): such flows see the same links, so they always freeze together at
    // the same level. A wide trace has many more flows than distinct routes (a big switch of
    // P ports has P^2 routes), so the per-bottleneck work shrinks from flows to routes. The
    // floating-point operations are the reference's, in its order: a link's claimed capacity
    // still receives one addition of the level per frozen flow, so rates match bit for bit.
    thread_local std::vector<const std::vector<int>*> group_path;
    thread_local std::vector<int> group_size, group_first, group_fill, group_flows, flow_group;
    thread_local std::vector<int> unfrozen, size, first, cursor, members, touched, affected;
    thread_local std::vector<double> claimed;
    thread_local std::vector<char> frozen, marked;
    thread_local LinkHeap heap;
    const size_t nl = residual.size();
    if (unfrozen.size() < nl) {
        unfrozen.assign(nl, 0);
        size.assign(nl, 0);
        first.assign(nl, 0);
        cursor.assign(nl, 0);
        claimed.assign(nl, 0);
        marked.assign(nl, 0);
    }
    // Group the live flows (every link of the route has capacity left) by route.
    group_path.clear();
    group_size.clear();
    flow_group.resize(subset.size());
    group_routes(flows, subset, flow_group);
    for (size_t i = 0; i < subset.size(); ++i) {
        int& key = route_group[static_cast<size_t>(flow_group[i])];
        if (key == kUnseen) {
            const std::vector<int>* path = flows[subset[i]].path;
            bool ok = true;
            for (int l : *path)
                if (residual[l] <= kRateEps) ok = false;
            key = ok ? static_cast<int>(group_path.size()) : kDead;
            if (ok) {
                group_path.push_back(path);
                group_size.push_back(0);
            }
        }
        flow_group[i] = key;
        if (key >= 0) ++group_size[static_cast<size_t>(key)];
    }
    const size_t ng = group_path.size();
    if (ng == 0) return;
    group_first.resize(ng);
    group_fill.resize(ng);
    int offset = 0;
    for (size_t g = 0; g < ng; ++g) {
        group_first[g] = group_fill[g] = offset;
        offset += group_size[g];
    }
    group_flows.resize(static_cast<size_t>(offset));
    for (size_t i = 0; i < subset.size(); ++i)
        if (flow_group[i] >= 0) group_flows[group_fill[flow_group[i]]++] = subset[i];

    // Per link: its groups, and how many live flows cross it.
    touched.clear();
    for (size_t g = 0; g < ng; ++g)
        for (int l : *group_path[g]) {
            if (size[l] == 0 && unfrozen[l] == 0) touched.push_back(l);
            ++size[l];
            unfrozen[l] += group_size[g];
        }
    offset = 0;
    for (int l : touched) {
        first[l] = cursor[l] = offset;
        offset += size[l];
        claimed[l] = 0;
    }
    members.resize(static_cast<size_t>(offset));
    for (size_t g = 0; g < ng; ++g)
        for (int l : *group_path[g]) members[cursor[l]++] = static_cast<int>(g);

    frozen.assign(ng, 0);
    heap.reset(nl);
    for (int l : touched) heap.set(l, residual[l] / unfrozen[l]);
    while (!heap.empty()) {
        const int l = heap.top();
        const double lambda = std::max(0.0, heap.key(l));
        heap.erase(l);
        affected.clear();
        for (int k = first[l]; k < first[l] + size[l]; ++k) {
            const int g = members[k];
            if (frozen[g]) continue;
            frozen[g] = 1;
            const int count = group_size[g];
            for (int j = group_first[g]; j < group_first[g] + count; ++j) flows[group_flows[j]].rate += lambda;
            for (int l2 : *group_path[g]) {
                for (int c = 0; c < count; ++c) claimed[l2] += lambda;
                unfrozen[l2] -= count;
                if (l2 != l && !marked[l2]) {
                    marked[l2] = 1;
                    affected.push_back(l2);
                }
            }
        }
        for (int l2 : affected) {
            marked[l2] = 0;
            if (unfrozen[l2] > 0)
                heap.set(l2, (residual[l2] - claimed[l2]) / unfrozen[l2]);
            else
                heap.erase(l2);
        }
    }
    for (int l : touched) {
        residual[l] -= claimed[l];
        if (residual[l] < kRateEps) residual[l] = 0;   // saturated: rounding must not leave crumbs
        size[l] = 0;
        unfrozen[l] = 0;
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
    thread_local std::vector<int> all;
    all.resize(view.flows->size());
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
