#include "common/plan/plan.h"

namespace spiderflow {

int Plan::first_layer_of_stage(int stage) const {
    int first = 0;
    for (int s = 0; s < stage && s < static_cast<int>(layers_per_stage.size()); ++s) first += layers_per_stage[s];
    return first;
}

std::vector<RankPlacement> Plan::ranks() const {
    std::vector<RankPlacement> out;
    out.reserve(static_cast<size_t>(world_size()));
    // Megatron-LM's default rank order: tensor fastest, then data, then pipeline.
    for (int s = 0; s < pp; ++s) {
        const int first = first_layer_of_stage(s);
        const int count = s < static_cast<int>(layers_per_stage.size()) ? layers_per_stage[s] : 0;
        for (int r = 0; r < dp; ++r) {
            const StageCell& c = cell(s, r);
            for (int t = 0; t < tp; ++t) {
                RankPlacement p;
                p.rank = static_cast<int>(out.size());
                p.cluster = c.cluster;
                p.node = c.node;
                p.gpu = c.first_gpu + t;
                p.tp = t;
                p.pp = s;
                p.dp = r;
                p.first_layer = first;
                p.num_layers = count;
                out.push_back(p);
            }
        }
    }
    return out;
}

}  // namespace spiderflow
