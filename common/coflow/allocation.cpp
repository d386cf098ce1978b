#include "common/coflow/allocation.h"

#include "common/coflow/matching_order.h"

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

using Route = std::vector<int>;

// The distinct route objects of a subset, in order of first appearance, with how many of the
// subset's flows take each; route_of gives each subset entry's route number.
struct RouteCensus {
    std::vector<const Route*> path;
    std::vector<int> count;
    std::vector<int> route_of;
};

// Routes are usually elements of one table (Network's), so an address minus the lowest one, in
// units of the object size, is a small number that no two distinct objects share (objects do
// not overlap): a direct index, no hashing. Routes spread over memory fall back to a hash map.
void take_census(const std::vector<ActiveFlow>& flows, const std::vector<int>& subset, RouteCensus& census) {
    thread_local std::vector<int> dense;   // route number + 1 per address slot; 0 = not seen
    thread_local std::unordered_map<const Route*, int> sparse;
    census.path.clear();
    census.count.clear();
    census.route_of.resize(subset.size());
    if (subset.empty()) return;
    const Route* lo = flows[subset[0]].path;
    const Route* hi = lo;
    for (int f : subset) {
        lo = std::min(lo, flows[f].path, std::less<const Route*>());
        hi = std::max(hi, flows[f].path, std::less<const Route*>());
    }
    const auto slot = [lo](const Route* r) {
        return (reinterpret_cast<std::uintptr_t>(r) - reinterpret_cast<std::uintptr_t>(lo)) / sizeof(Route);
    };
    const auto number = [&census](int& id, const Route* path) __attribute__((always_inline)) {
        if (id == 0) {
            census.path.push_back(path);
            census.count.push_back(0);
            id = static_cast<int>(census.path.size());
        }
        ++census.count[static_cast<size_t>(id - 1)];
        return id - 1;
    };
    const std::uintptr_t span = slot(hi) + 1;
    if (span <= std::max<std::uintptr_t>(1u << 16, 4 * subset.size())) {
        if (dense.size() < span) dense.assign(span, 0);
        for (size_t i = 0; i < subset.size(); ++i) {
            const Route* path = flows[subset[i]].path;
            census.route_of[i] = number(dense[slot(path)], path);
        }
        for (const Route* path : census.path) dense[slot(path)] = 0;
        return;
    }
    sparse.clear();
    for (size_t i = 0; i < subset.size(); ++i) {
        const Route* path = flows[subset[i]].path;
        census.route_of[i] = number(sparse[path], path);
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
    // P ports has P^2 routes; 50 ports: ~22k flows on ~2.2k routes), so the per-bottleneck
    // work shrinks from flows to routes. The floating-point operations are the reference's, in
    // its order: a link's claimed capacity still receives one addition of the level per frozen
    // flow, and each flow one addition of its level, so rates match bit for bit.
    thread_local RouteCensus census;
    thread_local std::vector<const Route*> group_path;
    thread_local std::vector<int> group_size, route_group;
    thread_local std::vector<double> group_level;
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
    // Groups: the live routes (every link has capacity left), in order of first appearance.
    take_census(flows, subset, census);
    group_path.clear();
    group_size.clear();
    route_group.assign(census.path.size(), -1);
    for (size_t r = 0; r < census.path.size(); ++r) {
        bool ok = true;
        for (int l : *census.path[r])
            if (residual[l] <= kRateEps) ok = false;
        if (!ok) continue;
        route_group[r] = static_cast<int>(group_path.size());
        group_path.push_back(census.path[r]);
        group_size.push_back(census.count[r]);
    }
    const size_t ng = group_path.size();
    if (ng == 0) return;
    group_level.assign(ng, 0);

    // Per link: its groups, and how many live flows cross it.
    touched.clear();
    for (size_t g = 0; g < ng; ++g)
        for (int l : *group_path[g]) {
            if (size[l] == 0 && unfrozen[l] == 0) touched.push_back(l);
            ++size[l];
            unfrozen[l] += group_size[g];
        }
    int offset = 0;
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
            group_level[g] = lambda;
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
    // Every group froze (each touched link pops once, freezing all its groups).
    for (size_t i = 0; i < subset.size(); ++i) {
        const int g = route_group[static_cast<size_t>(census.route_of[i])];
        if (g >= 0) flows[subset[i]].rate += group_level[static_cast<size_t>(g)];
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
    if (reference_maxmin) return bottleneck_time_reference(flows, subset, cap);
    thread_local std::vector<double> load;
    thread_local std::vector<int> touched;
    if (load.size() < cap.size()) load.assign(cap.size(), 0);
    touched.clear();
    // The sums per link keep their order of additions, but the two links used last live in
    // registers: a coflow's neighbouring flows share a port, and through memory every addition
    // waited for the previous one's store.
    int recent = -1, older = -1;
    double recent_sum = 0, older_sum = 0;
    for (int f : subset)
        for (int l : *flows[f].path) {
            const double r = flows[f].remaining;
            if (l == recent) {
                recent_sum += r;
                continue;
            }
            if (l == older) {
                std::swap(recent, older);
                std::swap(recent_sum, older_sum);
                recent_sum += r;
                continue;
            }
            if (older >= 0) load[older] = older_sum;
            older = recent;
            older_sum = recent_sum;
            recent = l;
            recent_sum = load[l];
            if (recent_sum == 0) touched.push_back(l);
            recent_sum += r;
        }
    if (older >= 0) load[older] = older_sum;
    if (recent >= 0) load[recent] = recent_sum;
    double gamma = 0;
    for (int l : touched) {
        gamma = std::max(gamma, cap[l] <= kRateEps ? std::numeric_limits<double>::infinity() : load[l] / cap[l]);
        load[l] = 0;
    }
    return gamma;
}

void link_loads(const std::vector<ActiveFlow>& flows, const std::vector<int>& subset, LinkLoads& out) {
    thread_local std::vector<int> slot;   // position in out + 1 per link; 0 = not yet used
    out.link.clear();
    out.bytes.clear();
    for (int f : subset)
        for (int l : *flows[f].path) {
            if (slot.size() <= static_cast<size_t>(l)) slot.resize(static_cast<size_t>(l) + 1, 0);
            int& k = slot[static_cast<size_t>(l)];
            if (k == 0) {
                out.link.push_back(l);
                out.bytes.push_back(0);
                k = static_cast<int>(out.link.size());
            }
            out.bytes[static_cast<size_t>(k - 1)] += flows[f].remaining;
        }
    for (int l : out.link) slot[static_cast<size_t>(l)] = 0;
}

double bottleneck_time(const LinkLoads& loads, const std::vector<double>& cap) {
    double gamma = 0;
    for (size_t k = 0; k < loads.link.size(); ++k) {
        const double c = cap[static_cast<size_t>(loads.link[k])];
        gamma = std::max(gamma, c <= kRateEps ? std::numeric_limits<double>::infinity() : loads.bytes[k] / c);
    }
    return gamma;
}

namespace {

bool madd_at(std::vector<ActiveFlow>& flows, const std::vector<int>& subset, double gamma,
             std::vector<double>& residual) {
    if (!(gamma < std::numeric_limits<double>::infinity()) || gamma <= 0) return false;
    for (int f : subset) {
        const double r = flows[f].remaining / gamma;
        flows[f].rate += r;
        for (int l : *flows[f].path) residual[l] = std::max(0.0, residual[l] - r);
    }
    return true;
}

}  // namespace

bool madd_fill(std::vector<ActiveFlow>& flows, const std::vector<int>& subset, std::vector<double>& residual) {
    if (subset.empty()) return true;
    return madd_at(flows, subset, bottleneck_time(flows, subset, residual), residual);
}

bool madd_fill(std::vector<ActiveFlow>& flows, const std::vector<int>& subset, const LinkLoads& loads,
               std::vector<double>& residual) {
    if (subset.empty()) return true;
    return madd_at(flows, subset, bottleneck_time(loads, residual), residual);
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
    return greedy_matching_sorted(flows, order, num_links);
}

}  // namespace spiderflow::coflow
