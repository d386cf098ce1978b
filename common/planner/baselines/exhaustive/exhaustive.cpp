#include "common/planner/baselines/exhaustive/exhaustive.h"

#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <algorithm>

#include "common/planner/baselines/common/evaluator.h"
#include "common/util/errors.h"

namespace spiderflow {

double ExhaustivePolicy::layouts(int clusters, int pp, int dp) {
    // C(n + dp - 1, dp) with n = clusters^pp, in logs so that it never overflows.
    const double log_n = pp * std::log(static_cast<double>(std::max(1, clusters)));
    if (log_n > 40) return std::numeric_limits<double>::infinity();
    const double n = std::exp(log_n);
    const double c = std::exp(std::lgamma(n + dp) - std::lgamma(dp + 1.0) - std::lgamma(n));
    return c < 1e15 ? std::round(c) : c;
}

PlanResult ExhaustivePolicy::plan(const PlanRequest& request, const CostModel& cost) const {
    baselines::Evaluator eval(request, cost, name(), 600.0);
    const std::vector<Shape> shapes = eval.shapes();

    double total = 0;
    for (const Shape& s : shapes) total += layouts(static_cast<int>(eval.clusters_by_compute(s.tp).size()), s.pp, s.dp);
    if (!(total <= options_.max_layouts)) {
        char buf[200];
        std::snprintf(buf, sizeof buf, "%.3g layouts over %zu shapes", total, shapes.size());
        throw InfeasibleError(std::string("exhaustive search refused: the space has ") + buf + " (limit " +
                              std::to_string(static_cast<long long>(options_.max_layouts)) +
                              "); use it on smaller instances or fix --tp/--pp/--dp");
    }

    baselines::BestKeeper keeper(eval);
    long long visited = 0;
    for (const Shape& s : shapes) {
        const std::vector<int> clusters = eval.clusters_by_compute(s.tp);
        const int k = static_cast<int>(clusters.size());
        if (k == 0) continue;
        std::vector<int> free;
        for (int c : clusters) free.push_back(eval.slots_of(s.tp, c));
        long long pipelines = 1;
        for (int i = 0; i < s.pp; ++i) pipelines *= k;

        std::vector<int> cells(static_cast<size_t>(s.pp) * s.dp, -1);
        // Replica r takes pipeline index >= replica r-1's: each multiset once.
        std::function<void(int, long long)> walk = [&](int r, long long from) {
            if (eval.hit_limit()) return;
            if (r == s.dp) {
                ++visited;
                // Each layout with its best layer split, so the oracle covers the split too.
                const Plan p = eval.polish_layers(eval.realise(s, cells));
                keeper.offer(p, baselines::layout_key(p));
                if ((visited & 255) == 0) eval.out_of_time();
                return;
            }
            for (long long idx = from; idx < pipelines; ++idx) {
                long long digits = idx;
                bool fits = true;
                int st = 0;
                for (; st < s.pp; ++st) {
                    const int ci = static_cast<int>(digits % k);
                    digits /= k;
                    if (free[static_cast<size_t>(ci)] == 0) {
                        fits = false;
                        break;
                    }
                    --free[static_cast<size_t>(ci)];
                    cells[static_cast<size_t>(st) * s.dp + r] = clusters[static_cast<size_t>(ci)];
                }
                if (fits) walk(r + 1, idx);
                // Give back what this pipeline took.
                digits = idx;
                for (int u = 0; u < st; ++u) {
                    ++free[static_cast<size_t>(digits % k)];
                    digits /= k;
                }
                if (eval.hit_limit()) return;
            }
        };
        walk(0, 0);
        if (eval.out_of_time()) break;
    }
    char note[160];
    std::snprintf(note, sizeof note, "exhaustive: %lld layouts over %zu shapes realised and scored%s", visited,
                  shapes.size(), eval.hit_limit() ? " (incomplete: not an oracle result)" : "");
    return keeper.result(eval, note);
}

std::unique_ptr<PlannerPolicy> make_exhaustive() { return std::make_unique<ExhaustivePolicy>(); }

}  // namespace spiderflow
