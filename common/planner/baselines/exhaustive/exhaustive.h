// exhaustive: the oracle for small instances. For every shape, every assignment of the
// (stage, replica) cells to clusters, up to the symmetry of replicas (a layout is a multiset of
// dp pipelines, each a sequence of pp clusters), is realised and scored by the cost model.
// Inside a cluster cells take the fastest free slots (no search there). When the space exceeds
// max_layouts the policy refuses with an InfeasibleError that says how large it is, instead of
// pretending to be an oracle.
#pragma once

#include <memory>

#include "common/planner/planner.h"

namespace spiderflow {

struct ExhaustiveOptions {
    double max_layouts = 200000;  // summed over shapes, before capacity pruning
};

class ExhaustivePolicy : public PlannerPolicy {
public:
    explicit ExhaustivePolicy(ExhaustiveOptions options = {}) : options_(options) {}
    std::string name() const override { return "exhaustive"; }
    PlanResult plan(const PlanRequest& request, const CostModel& cost) const override;

    // Layouts of one shape over k clusters up to replica symmetry: C(k^pp + dp - 1, dp).
    static double layouts(int clusters, int pp, int dp);

private:
    ExhaustiveOptions options_;
};

std::unique_ptr<PlannerPolicy> make_exhaustive();

}  // namespace spiderflow
