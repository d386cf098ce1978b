// A training plan's cross-cluster traffic as a periodic coflow DAG (one PeriodicJob).
// Per iteration, GPipe order (all forwards, then all backwards; 1F1B moves the same bytes in a
// different order):
//   F(m,s)      forward compute of micro-batch m on stage s
//   EPf(m,s)    MoE all-to-all (dispatch + combine) of stage s's layers, forward (MoE only)
//   PPact(m,s)  activations of m from stage s to s+1, one flow per replica whose two cells
//               sit in different clusters
//   B(m,s), EPb(m,s), PPgrad(m,s) (s to s-1): the same backwards
//   DP(s)       after the last micro-batch: stage s's gradients, all-reduced hierarchically;
//               only the all-reduce of shards between clusters is WAN traffic (a ring over the
//               clusters holding replicas of s; each sends 2(k-1)/k of the stage's gradients)
// The next iteration's F(0,s) waits for DP(s). Flow endpoints are cluster indices, i.e. the node
// ids of Network::from_topology(). Traffic inside a cluster is not modelled (it never crosses
// the WAN); coflows without WAN flows still order the DAG and complete at once.
#pragma once

#include <string>
#include <vector>

#include "common/coflow/coflow.h"
#include "common/plan/plan.h"

namespace spiderflow::coflow {

// Compute windows: seconds per micro-batch on each stage (slowest cell of the stage).
struct StageTimes {
    std::vector<double> forward_s;
    std::vector<double> backward_s;
};

// Forward = 2 * active parameters * tokens / (tp * achieved FLOP/s per GPU); backward = 2x that.
// `achieved_flops` is peak * efficiency of the GPU type the stage runs on.
StageTimes stage_times_from_flops(const Plan& plan, double achieved_flops);

// What crosses the WAN per iteration, by type (bytes), for reports and tests.
struct IterationTraffic {
    double pp_bytes = 0;
    double dp_bytes = 0;
    double ep_bytes = 0;
};

struct LlmJobOptions {
    std::string name = "job";
    double arrival_s = 0;
    int iterations = 1;
};

// Throws InputError when the plan is inconsistent (cells/layers not matching pp x dp).
PeriodicJob build_llm_job(const Plan& plan, const StageTimes& times, const LlmJobOptions& options,
                          IterationTraffic* traffic = nullptr);

// Bytes that cross a stage boundary per micro-batch and replica (one direction).
double activation_bytes(const Plan& plan);
// Gradient bytes of stage s that DP all-reduces (expert weights excluded when experts are
// sharded over the data-parallel group).
double stage_gradient_bytes(const Plan& plan, int stage);

}  // namespace spiderflow::coflow
