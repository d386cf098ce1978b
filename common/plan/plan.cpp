#include "common/plan/plan.h"

namespace spiderflow {

int Plan::first_layer_of_stage(int stage) const {
    int first = 0;
    for (int s = 0; s < stage && s < static_cast<int>(layers_per_stage.size()); ++s) first += layers_per_stage[s];
    return first;
}

ParallelCoords coords_of_rank(int rank, int tp, int pp, int dp) {
    ParallelCoords c;
    if (tp <= 0 || pp <= 0 || dp <= 0) return c;
    c.tp = rank % tp;
    c.dp = (rank / tp) % dp;
    c.pp = rank / (tp * dp);
    return c;
}

std::vector<RankPlacement> Plan::ranks() const {
    std::vector<RankPlacement> out;
    out.reserve(static_cast<size_t>(world_size()));
    for (int rank = 0; rank < world_size(); ++rank) {
        const ParallelCoords k = coords_of_rank(rank, tp, pp, dp);
        const StageCell& c = cell(k.pp, k.dp);
        RankPlacement p;
        p.rank = rank;
        p.cluster = c.cluster;
        p.node = c.node;
        p.gpu = c.first_gpu + k.tp;
        p.tp = k.tp;
        p.pp = k.pp;
        p.dp = k.dp;
        p.first_layer = first_layer_of_stage(k.pp);
        p.num_layers = k.pp < static_cast<int>(layers_per_stage.size()) ? layers_per_stage[static_cast<size_t>(k.pp)] : 0;
        out.push_back(p);
    }
    return out;
}

}  // namespace spiderflow
