// A training plan's cross-cluster traffic as a periodic coflow DAG (one PeriodicJob).
// Per iteration, GPipe order (all forwards, then all backwards; 1F1B moves the same bytes in a
// different order):
//   F(m,s)      forward compute of micro-batch m on stage s
//   PPact(m,s)  activations of m from stage s to s+1, one flow per replica whose two cells
//               sit in different clusters; starts once PPact(m-1,s) has sent its last byte
//               (one FIFO channel per peer pair, as NCCL's p2p stream is), so micro-batches
//               stream through a boundary one after another instead of sharing it
//   B(m,s), PPgrad(m,s) (s+1 to s): the same backwards
//   DP(s)       after the last micro-batch: stage s's gradients all-reduced; only the ring
//               edges between clusters are WAN traffic
// The flows and their bytes are the plan's (common/plan/plan_traffic.h: one definition for the
// planner, the plan writers and this model). That definition keeps every expert on every
// replica (the plan has no expert-parallel degree; the memory and cost models assume the
// same), so no MoE all-to-all crosses clusters and the DAG has no EP coflows.
// The next iteration's F(0,s) waits for DP(s). Flow endpoints are cluster indices, i.e. the node
// ids of Network::from_topology(). Traffic inside a cluster is not modelled (it never crosses
// the WAN); coflows without WAN flows still order the DAG and complete at once.
#pragma once

#include <string>
#include <vector>

#include "common/coflow/coflow.h"
#include "common/model/catalog.h"
#include "common/plan/plan.h"
#include "common/plan/plan_traffic.h"
#include "common/topology/topology.h"

namespace spiderflow::coflow {

// Compute windows: seconds per micro-batch on each stage (slowest cell of the stage).
struct StageTimes {
    std::vector<double> forward_s;
    std::vector<double> backward_s;
};

// The cost model's compute time of one micro-batch on each stage (cost::micro_batch_compute), so
// the simulated DAG and the prediction it is checked against never differ in their compute.
// `achieved_flops` is peak * efficiency of the GPU type.
StageTimes stage_times_from_flops(const Plan& plan, double achieved_flops);
// The same on the plan's own cells: each stage as slow as the slowest GPU type among its cells
// (peak * efficiency from `catalog`). Throws InputError naming a GPU type the catalog lacks.
StageTimes stage_times_on(const Plan& plan, const Topology& topology, const Catalog& catalog);

// What crosses the WAN per iteration, by type (bytes), for reports and tests.
struct IterationTraffic {
    double pp_bytes = 0;
    double dp_bytes = 0;
    double ep_bytes = 0;   // MoE all-to-all: none crosses clusters under the plan's model (above)
};

struct LlmJobOptions {
    std::string name = "job";
    double arrival_s = 0;
    int iterations = 1;
    // The plan's topology: each flow then takes the route the cost model prices for its kind
    // (plan_routes.h: pipeline messages often the fastest, all-reduce edges the widest), on a
    // Network::from_topology of it. Null: every flow on the network's default (widest) route.
    const Topology* topology = nullptr;
};

// Throws InputError when the plan is inconsistent (cells/layers not matching pp x dp).
PeriodicJob build_llm_job(const Plan& plan, const StageTimes& times, const LlmJobOptions& options,
                          IterationTraffic* traffic = nullptr);

}  // namespace spiderflow::coflow
