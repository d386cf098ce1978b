// Event-driven flow-level network simulator. Between events every active flow sends at the
// rate the scheduler gave it; events are coflow arrivals, compute-window ends, flow
// completions (last byte sent; it arrives one route latency later) and scheduler reviews.
#pragma once

#include <functional>

#include <limits>
#include <string>
#include <vector>

#include "common/coflow/coflow.h"
#include "common/coflow/network.h"
#include "common/coflow/scheduler.h"

namespace spiderflow::coflow {

// Where a long run is, for a progress line.
struct SimProgress {
    double sim_s = 0;                // simulated time reached
    long flow_events = 0;
    size_t coflows_done = 0;
    double wall_s = 0;
    long allocations = 0;            // scheduler calls so far
    size_t active_flows = 0;         // flows sending now: what each event's work grows with
};

struct SimOptions {
    // Called about every progress_every_s of wall time while the run lasts (never when empty).
    std::function<void(const SimProgress&)> progress;
    double progress_every_s = 1;
    bool check_invariants = false;   // verify capacity and work conservation at every allocation
    double horizon_s = std::numeric_limits<double>::infinity();  // stop simulated time here
    // Run the straightforward allocation path (maxmin_fill_reference, bottleneck_time_reference)
    // instead of the optimised one: for tests that check both give the same results.
    bool reference_allocation = false;
};

struct CoflowRecord {
    int id = 0;                      // trace id for trace coflows, run-unique id otherwise
    int job = -1;
    int iteration = 0;
    int task = -1;                   // index into PeriodicJob::tasks
    CoflowKind kind = CoflowKind::generic;
    double release_s = 0;
    double finish_s = 0;             // last byte delivered
    double bytes = 0;
    double cct_s() const { return finish_s - release_s; }
};

struct JobRecord {
    std::string name;
    double arrival_s = 0;
    double finish_s = -1;            // -1 when the horizon ended first
    std::vector<double> iteration_end_s;
    double jct_s() const { return finish_s - arrival_s; }
    double mean_iteration_s() const;
};

struct SimStats {
    long flow_events = 0;            // flow starts + flow completions
    long allocations = 0;            // scheduler calls
    double wall_s = 0;               // whole run
    double scheduler_wall_s = 0;     // inside Scheduler::allocate
    double sim_end_s = 0;
    double bytes_offered = 0;
    double bytes_sent = 0;           // integral of rates over time
    double max_link_load = 0;        // max over links and allocations of rate sum / capacity
    long work_conservation_violations = 0;  // flows left idle with no saturated link on their route
    long stalls = 0;                 // runs that ended with flows that had no rate and nothing left to wake them
    int max_active_coflows = 0;
};

struct SimResult {
    std::vector<CoflowRecord> coflows;   // completed coflows, in completion order
    std::vector<JobRecord> jobs;
    SimStats stats;
};

// The job's iteration time when it runs alone on `net` (mean over up to `iterations` iterations,
// per-flow fair sharing): what a job learns about its own period from its first iterations.
double measure_period(const Network& net, const PeriodicJob& job, int iterations = 2);

// Throws InputError when a flow's endpoints are unknown or unreachable in `net`.
SimResult simulate(const Network& net, const Workload& workload, Scheduler& scheduler, const SimOptions& options = {});

}  // namespace spiderflow::coflow
