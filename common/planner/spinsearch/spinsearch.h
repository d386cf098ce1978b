// SpinSearch + TPA: the default planner. Per shape, spins pipelines out of seed clusters along
// their best-connected neighbours in both orientations (stages across sites with DP local, or
// whole pipelines per site with hierarchical DP across) and mixes of the two, keeps a beam of
// the best, polishes with local moves; TPA splits layers between clusters (level 1) and places
// stages on node groups inside each cluster with a CBC ILP (level 2). Every candidate is scored
// by the one CostModel.
#pragma once

#include <memory>

#include "common/planner/planner.h"

namespace spiderflow {

struct SpinSearchOptions {
    int beam_width = 8;          // best distinct layouts polished after the spin
    int beam_per_shape = 2;      // of which at most this many of one shape (tp, pp, dp, micro-batch):
                                 // polish (moving layers between stages) reorders shapes, so the
                                 // beam spans several instead of one shape's near-copies
    int max_shapes = 24;         // shapes fully searched, best lower bound first
    int seed_clusters = 4;       // seeds per shape (top clusters by compute)
    int polish_rounds = 8;       // local-move sweeps over the beam (stops early when none helps)
    double ilp_time_limit_s = 2.0;
};

class SpinSearch : public PlannerPolicy {
public:
    explicit SpinSearch(SpinSearchOptions options = {}) : options_(options) {}
    std::string name() const override { return "spinsearch"; }
    PlanResult plan(const PlanRequest& request, const CostModel& cost) const override;

private:
    SpinSearchOptions options_;
};

std::unique_ptr<PlannerPolicy> make_spinsearch();

}  // namespace spiderflow
