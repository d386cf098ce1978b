// genetic: a DTFM-style genetic search (Yuan, He, Davis, Zhang, Dao, Chen, Liang, Re, Zhang,
// "Decentralized Training of Foundation Models in Heterogeneous Environments", NeurIPS 2022).
// DTFM schedules a fixed DP x PP layout onto devices with a genetic algorithm over the
// assignment (population 100, 4900 trials in its published setting), crossover of parent
// assignments, repair to a valid assignment, and local search on offspring. Here the genome is
// the cluster of every (stage, replica) cell of one shape of the shared layout space; shapes
// are a gene too (crossover only mixes parents of the same shape, mutation may move an
// individual to a neighbouring shape), and every individual is realised and scored by the one
// CostModel. Seeded: same inputs and seed, same plan.
#pragma once

#include <memory>

#include "common/planner/planner.h"

namespace spiderflow {

struct GeneticOptions {
    int population = 100;        // DTFM's published setting
    int trials = 4900;           // offspring evaluated, DTFM's published setting
    int tournament = 3;
    double mutation_rate = 0.05; // per cell
    int local_search_moves = 2;  // swap moves tried on each offspring
};

class GeneticPolicy : public PlannerPolicy {
public:
    explicit GeneticPolicy(GeneticOptions options = {}) : options_(options) {}
    std::string name() const override { return "genetic"; }
    PlanResult plan(const PlanRequest& request, const CostModel& cost) const override;

private:
    GeneticOptions options_;
};

std::unique_ptr<PlannerPolicy> make_genetic();

}  // namespace spiderflow
