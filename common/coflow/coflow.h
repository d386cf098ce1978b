// Coflows as plain data: what the simulator runs and the schedulers order.
// A workload is either a list of one-shot coflows (a MapReduce-style trace) or periodic
// training jobs whose iterations are a DAG of compute tasks and coflows (see llm_traffic.h).
// Units: bytes, seconds (common/util/units.h).
#pragma once

#include <string>
#include <vector>

namespace spiderflow::coflow {

// What a coflow carries. Hermod ranks EP and PP above DP inside one micro-batch.
enum class CoflowKind { generic, pp, ep, dp };
const char* to_string(CoflowKind k);

// One flow between two network endpoints (Network node indices).
struct FlowSpec {
    int src = -1;
    int dst = -1;
    double bytes = 0;
    bool fast_route = false;   // the network's fast route for the pair (Network::route)
};

// A coflow of a trace: arrives at a fixed time, independent of every other.
struct TraceCoflow {
    int id = 0;
    double arrival_s = 0;
    std::vector<FlowSpec> flows;
};

// One node of a training job's per-iteration DAG: either a compute window (duration, no network
// traffic) or a coflow (flows, released when its dependencies are done, complete when its last
// byte has arrived).
struct Task {
    enum class Type { compute, coflow };
    Type type = Type::compute;
    std::string label;               // "F m3 s1", "PPact m3 s1>2", "DP s0": for traces and tests
    double duration_s = 0;           // compute only
    std::vector<FlowSpec> flows;     // coflow only; may be empty (all endpoints in one cluster)
    CoflowKind kind = CoflowKind::generic;
    int micro_batch = 0;             // Hermod rank keys
    int layer = 0;
    std::vector<int> deps;           // tasks of the same iteration that must finish first
    std::vector<int> prev_deps;      // tasks of the previous iteration (ignored in iteration 0)
    // Coflows of the same iteration whose last byte must have left before this one starts:
    // messages on one FIFO channel (NCCL sends to one peer in order on one stream, so the next
    // micro-batch's activations follow the previous one's last byte, not its arrival, and
    // never share the link with it).
    std::vector<int> sent_deps;
};

// A training job: `iterations` copies of the same DAG, iteration k+1 chained to k by prev_deps.
struct PeriodicJob {
    std::string name;
    double arrival_s = 0;
    int iterations = 1;
    int micro_batches = 1;           // per iteration; Hermod compares global micro-batch ids
    std::vector<Task> tasks;
    // Bytes the job puts on the WAN per iteration and compute-only iteration time; filled by
    // finalize_job(). The llm scheduler uses them to know remaining work without peeking ahead.
    double wan_bytes_per_iteration = 0;
    double compute_s_per_iteration = 0;
    // Iteration time of the job alone on the network (its period when nothing competes), as a
    // job learns it from its first iterations; 0 = unknown. See measure_period() in simulator.h.
    double period_s = 0;
};

// Checks task references (InputError naming the job and task) and fills the per-iteration sums.
void finalize_job(PeriodicJob& job);

struct Workload {
    std::vector<TraceCoflow> coflows;
    std::vector<PeriodicJob> jobs;
};

}  // namespace spiderflow::coflow
