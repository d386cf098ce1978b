// The parts CostModel::estimate() is composed of (doc/cost-model.md), each callable alone: a
// scheduler or simulator that needs one stage's compute windows or one stage's all-reduce asks
// for that part instead of the whole prediction, and gets the same numbers estimate() uses.
// Every part but estimate_problem() expects a plan estimate_problem() accepted.
#pragma once

#include <string>
#include <vector>

#include "common/cost/cost_model.h"
#include "common/cost/memory.h"

namespace spiderflow::cost {

// Why `plan` cannot be estimated on the model's topology; empty when it can (cost_check.cpp): the
// plan is ill formed there (spiderflow::plan_problem, the one definition), the topology is not
// finalized, the model has no dimensions, or a cell's GPU type is not in the catalog.
std::string estimate_problem(const CostModel& model, const Plan& plan);

// ---- Compute (cost_compute.cpp) ----

// One micro-batch through one cell of a stage.
struct MicroBatchCompute {
    double forward_s = 0;
    double recompute_s = 0;   // what recomputation repeats before backward: whole layers (full) or
                              // their attention core (selective); 0 without recomputation
    double backward_s() const { return 2.0 * forward_s + recompute_s; }
    double total_s() const { return 3.0 * forward_s + recompute_s; }
};
// `achieved_flops` is one GPU's peak x efficiency; the cell's tp GPUs share the work, each GEMM at
// that rate times its shape factor (gemm_efficiency.h).
MicroBatchCompute micro_batch_compute(const Plan& plan, int stage, double achieved_flops);

// Per cell (indexed like plan.cells), per micro-batch, on the cell's own GPUs.
struct CellTimes {
    std::vector<double> compute_s;    // MicroBatchCompute::total_s()
    std::vector<double> backward_s;
    std::vector<double> tp_s;         // TP all-reduces not hidden behind compute
    double peak_flops = 0;            // all of the plan's GPUs together, MFU's denominator
};
CellTimes cell_times(const CostModel& model, const Plan& plan);

// ---- Pipeline (cost_pipeline.cpp) ----

// 1F1B on every replica; the slowest replica paces the iteration, so only it is reported.
struct PipelineTimes {
    std::string problem;      // a boundary with no usable link; nothing else is set then
    int replica = 0;          // the slowest replica
    int stage = 0;            // its slowest stage
    double iteration_s = 0;   // its schedule: compute + TP, bubble, p2p messages, latency
    double p2p_s = 0;         // of which the p2p messages
    double bubble_s = 0;      // of which filling and draining the pipeline, latency included
};
PipelineTimes pipeline_times(const CostModel& model, const Plan& plan, const CellTimes& cells, bool single_site);

// ---- Data parallelism (cost_data_parallel.cpp) ----

struct DataParallelTimes {
    std::string problem;               // a ring edge with no usable link; allreduce_s is unset then
    std::vector<double> allreduce_s;   // per stage, the whole gradient all-reduce; 0 with dp = 1
};
// All stages reduce at once, so each stage's time depends on the WAN links the others share.
DataParallelTimes dp_allreduce_times(const CostModel& model, const Plan& plan, bool single_site);
// DiLoCo's outer step: per stage, the pseudo-gradient all-reduce among the sites holding the
// stage (an all-gather inside each site, a ring across sites; nothing with one site).
DataParallelTimes outer_allreduce_times(const CostModel& model, const Plan& plan, bool single_site);
// What the slowest stage's all-reduce adds to the iteration after overlapping backward.
double dp_exposed_s(const CostOptions& options, const Plan& plan, const std::vector<double>& allreduce_s,
                    const CellTimes& cells);

// ---- DiLoCo outer step (cost_diloco.cpp) ----

// One outer step every job.sync.inner_steps inner steps of `inner_step_s` each.
struct OuterStep {
    std::string problem;        // a ring edge with no usable link; nothing else is set then
    double allreduce_s = 0;     // all stages at once: the slowest
    double exposed_s = 0;       // what the inner steps wait for
    double wan_bytes = 0;       // over WAN links, all cluster pairs together
};
OuterStep outer_step(const CostModel& model, const Plan& plan, double inner_step_s, bool single_site);
// Why `plan` cannot train with DiLoCo; empty when it can: a replica whose stages sit in
// different clusters would send activations over the WAN every inner step.
std::string diloco_problem(const Topology& topology, const Plan& plan);

// ---- Optimizer (cost_optimizer.cpp) ----

// The slowest GPU's Adam update.
double optimizer_s(const CostModel& model, const Plan& plan);

// ---- Memory (cost_memory.cpp) ----

struct MemoryFit {
    std::vector<double> stage_bytes;   // per GPU of each stage
    double max_bytes = 0;
    std::string problem;               // the worst overflow of a GPU's usable memory; empty when none
};
MemoryFit memory_fit(const CostModel& model, const Plan& plan);

}  // namespace spiderflow::cost
