#include "common/planner/baselines/global_ilp/shape_bound.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <queue>
#include <vector>

namespace spiderflow::global_ilp {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

size_t at(int i) { return static_cast<size_t>(i); }

// Could every stage place its dp replicas on clusters whose compute for it is at most t? Two
// necessary conditions (each stage alone, and all stages together against the slots), so the
// smallest t passing them is at most any layout's T_comp.
bool slots_suffice(const ShapeCosts& c, double t) {
    const int pp = c.pp(), dp = c.dp(), k = c.k();
    std::vector<int> stages_fitting(at(k), 0);
    for (int s = 0; s < pp; ++s) {
        long long room = 0;
        for (int p = 0; p < k; ++p)
            if (c.comp[at(s)][at(p)] <= t) {
                room += std::min(dp, c.slots[at(p)]);
                ++stages_fitting[at(p)];
            }
        if (room < dp) return false;
    }
    long long room = 0;
    for (int p = 0; p < k; ++p) room += std::min<long long>(c.slots[at(p)], static_cast<long long>(dp) * stages_fitting[at(p)]);
    return room >= static_cast<long long>(pp) * dp;
}

double comp_bound(const ShapeCosts& c) {
    std::vector<double> values;
    for (const auto& row : c.comp)
        for (int p = 0; p < c.k(); ++p)
            if (c.slots[at(p)] > 0 && !std::isinf(row[at(p)])) values.push_back(row[at(p)]);
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    if (values.empty() || !slots_suffice(c, values.back())) return kInfinity;
    // The conditions only get easier as t grows: the first value passing them.
    size_t lo = 0, hi = values.size() - 1;
    while (lo < hi) {
        const size_t mid = (lo + hi) / 2;
        if (slots_suffice(c, values[mid])) hi = mid;
        else lo = mid + 1;
    }
    return values[lo];
}

double pipe_bound(const ShapeCosts& c) {
    const int pp = c.pp(), dp = c.dp(), k = c.k();
    if (pp < 2) return 0;
    // Replicas that can run their whole pipeline inside one cluster: pp slots each, and every
    // stage fits the cluster's memory. Every other replica crosses at least one pair.
    long long whole = 0;
    for (int p = 0; p < k; ++p) {
        bool fits = true;
        for (int s = 0; s < pp; ++s) fits = fits && !std::isinf(c.comp[at(s)][at(p)]);
        if (fits) whole += c.slots[at(p)] / pp;
    }
    const long long forced = dp - whole;
    if (forced <= 0) return 0;
    // Spread those crossings over the pairs as evenly as their costs allow: the smallest
    // possible largest count * cost (T_pp is the largest pair's load).
    using Entry = std::pair<double, double>;  // (load with one more crossing, cost of one)
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> next;
    for (int a = 0; a < k; ++a)
        for (int b = a + 1; b < k; ++b)
            if (!std::isinf(c.pipe[at(a)][at(b)])) next.push({c.pipe[at(a)][at(b)], c.pipe[at(a)][at(b)]});
    if (next.empty()) return kInfinity;
    double load = 0;
    for (long long i = 0; i < forced; ++i) {
        const Entry e = next.top();
        next.pop();
        load = e.first;
        next.push({e.first + e.second, e.second});
    }
    return load;
}

double ring_bound(const ShapeCosts& c) {
    const int pp = c.pp(), dp = c.dp(), k = c.k();
    if (dp < 2 || c.dp_weight <= 0) return 0;
    double bound = 0;
    for (int s = 0; s < pp; ++s) {
        const auto& comp = c.comp[at(s)];
        bool one_cluster = false;
        for (int p = 0; p < k && !one_cluster; ++p) one_cluster = c.slots[at(p)] >= dp && !std::isinf(comp[at(p)]);
        if (one_cluster) continue;
        // The stage spans two clusters at least; its all-reduce pays the cheapest such pair.
        double cheapest = kInfinity;
        for (int a = 0; a < k; ++a)
            for (int b = a + 1; b < k; ++b)
                if (!std::isinf(comp[at(a)]) && !std::isinf(comp[at(b)])) cheapest = std::min(cheapest, c.dp_pair(s, a, b));
        bound = std::max(bound, cheapest);
    }
    return bound;
}

}  // namespace

ShapeBound proxy_lower_bound(const ShapeCosts& c) {
    ShapeBound b;
    b.comp = comp_bound(c);
    b.pipe = pipe_bound(c);
    b.ring = ring_bound(c);
    if (std::isinf(b.comp) || std::isinf(b.pipe) || std::isinf(b.ring)) {
        b.total = kInfinity;
        return b;
    }
    b.total = c.comp_weight * b.comp + b.pipe + (c.dp_weight > 0 ? c.dp_weight * b.ring : 0.0);
    return b;
}

}  // namespace spiderflow::global_ilp
