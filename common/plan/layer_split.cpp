#include "common/plan/layer_split.h"

namespace spiderflow {

std::string megatron_split_problem(const std::vector<int>& l) {
    if (l.empty()) return "there are no stages";
    for (size_t s = 0; s < l.size(); ++s)
        if (l[s] < 1)
            return "stage " + std::to_string(s) + " has " + std::to_string(l[s]) + " layers; every stage needs one";
    for (size_t s = 2; s + 1 < l.size(); ++s)
        if (l[s] != l[1])
            return "only the first and last stage may differ (--decoder-first/last-pipeline-num-layers), but stage 1 "
                   "holds " + std::to_string(l[1]) + " and stage " + std::to_string(s) + " holds " +
                   std::to_string(l[s]);
    return "";
}

std::vector<int> megatron_even_split(int layers, int pp) {
    if (pp < 1 || layers < pp) return {};
    if (pp == 1) return {layers};
    // The largest middle count whose remainder still gives the two ends a layer each: any
    // smaller one only loads the ends more.
    const int middles = pp - 2;
    for (int m = (layers + pp - 1) / pp; m >= 1; --m) {
        const int ends = layers - middles * m;
        if (ends < 2) continue;
        std::vector<int> split(static_cast<size_t>(pp), m);
        split.front() = ends - ends / 2;
        split.back() = ends / 2;
        return split;
    }
    return {};
}

}  // namespace spiderflow
