// Discrete-event simulation of a federation over time: jobs arrive from a trace, wait in a
// queue (FIFO, or FIFO with EASY backfill), are placed by a placement policy against the
// SiteState of that moment, train for their iterations at the cost model's iteration time
// slowed by WAN sharing (wan_sharing.h), and give their GPUs back when done.
// A cross-site job starts only when every part can start at once (all GPUs free now, which is
// what the co-allocator's common start waits for) and holds its GPUs for cross_site_start_s
// before training: the broker's negotiation and the launcher's start barrier.
// Waiting for a better placement (planner policies only): a job is not started on a placement
// whose run time exceeds (1 + slack) x its best one (its plan on the empty federation) while
// the running jobs' expected ends say that waiting for the best plan's GPUs ends sooner (it is
// then the queue's head for backfill until they free up, reserving those clusters alone: jobs
// behind it may start elsewhere, however long they run); otherwise it starts now. That keeps a
// planner from putting a job on a few scattered slow GPUs shortly before its fast cluster frees
// up, and never leaves GPUs idle on a wait that nothing says will pay.
// Decision time: with charge_decision_time, the scheduler makes one placement decision at a time
// and each costs its measured wall time on the simulated clock, as a controller's would: a job
// starts when the decision that placed it is done, and the next pass starts when the last one
// ended. The outcome then depends on this machine's speed. Without it (the default here) the run
// is deterministic for the same inputs: wall-clock figures are reported, never used to decide.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "services/fedsim/job_trace.h"
#include "common/model/catalog.h"
#include "common/site/site_state.h"

namespace spiderflow::fedsim {

struct FedSimProgress {
    double sim_s = 0;
    size_t done = 0;                 // finished or found unplaceable
    size_t running = 0;
    size_t queued = 0;
    size_t total = 0;
    double wall_s = 0;
};

struct FedSimOptions {
    std::string placement = "spinsearch";   // make_placement() name
    std::string network = "fair";           // coflow scheduler sharing the WAN
    bool backfill = true;                   // false: plain FIFO
    int backfill_depth = 16;                // jobs behind a blocked head tried per pass
    double planner_time_limit_s = 0;        // per planner call; 0 = the policy's default
    double cross_site_start_s = 5;
    double slack = 0.25;                    // see above; < 0: start wherever it fits now
    uint64_t seed = 1;
    bool check_invariants = false;          // GPUs never over-allocated, at every event
    bool charge_decision_time = false;      // see above
    bool log_decisions = false;             // fill FedSimResult::decisions (memory: one row each)
    std::function<void(const FedSimProgress&)> progress;
    double progress_every_s = 1;
};

struct JobOutcome {
    std::string id, model, home;
    double submit_s = 0;
    double start_s = -1;             // GPUs allocated; -1 when it never started
    double finish_s = -1;
    int gpus = 0;
    double iterations = 0;
    double tokens = 0;
    double alone_iteration_s = 0;    // the cost model's, on the placement it got
    double mean_iteration_s = 0;     // what it trained at, WAN sharing included
    bool cross_site = false;
    std::string placement;           // "oregon:16 ohio:16"
    std::string unplaceable;         // why it could never start (empty when it ran)
    int decisions = 0;               // placement attempts, admission included
    int decisions_capped = 0;        // of which the planner's time limit cut short
    double planner_wall_s = 0;
    double queue_s() const { return start_s < 0 ? -1 : start_s - submit_s; }
    double jct_s() const { return finish_s < 0 ? -1 : finish_s - submit_s; }
};

struct TimelineSample {
    double t = 0;
    int busy_gpus = 0;
    double tokens_per_s = 0;         // summed over the jobs training at t
    size_t running = 0;
    size_t queued = 0;
};

struct RunSummary {
    std::string placement, network;
    size_t jobs = 0, finished = 0, unplaceable = 0, cross_site = 0;
    double avg_jct_s = 0, p95_jct_s = 0, avg_queue_s = 0;
    double makespan_s = 0;           // first submit to last finish
    double tokens_per_s = 0;         // tokens trained / makespan
    double gpu_utilisation = 0;      // GPU-seconds held / (GPUs x makespan)
    long decisions = 0;              // placement attempts
    long decisions_capped = 0;       // of which the planner's time limit cut short
    long planner_calls = 0;
    double planner_wall_s = 0;
    double decision_ms_mean = 0, decision_ms_max = 0;
    long wan_simulations = 0;
    double wan_wall_s = 0;
    double wall_s = 0;
    long invariant_violations = 0;
    // The measurement window: from the submission of the first job past the warm-up (the first
    // tenth of the trace) to the last submission (what runs after it is the drain). Figures over
    // the jobs submitted inside it; utilisation and throughput over the window's own span.
    double window_start_s = 0, window_end_s = 0;
    size_t window_jobs = 0, window_finished = 0;
    double window_avg_jct_s = 0;
    double window_tokens_per_s = 0;     // tokens trained inside the window / its length
    double window_utilisation = 0;      // GPU-seconds held inside the window / (GPUs x its length)
};

// One placement decision, as the evaluation's log keeps it: what was asked, what was free,
// what the policy chose and what it predicted.
struct DecisionRecord {
    double t_s = 0;                  // simulated time it began
    std::string job;
    bool admission = false;          // the plan on the empty federation at submit, else a placement
    int gpus_min = 0, gpus_max = 0;  // the request
    std::string free;                // GPUs free per cluster in the view: "oregon:16 ohio:8"
    std::string plan;                // "tp4 pp2 dp2 mb1 v1 zero1" on "oregon:16"; empty when none
    double predicted_iteration_s = 0;
    double wall_ms = 0;
    bool capped = false;             // the planner's time limit cut it short
    std::string why;                 // no plan: the policy's reason
    std::string found_by;            // the oracle: which planner found the plan
    bool held = false;               // a plan the scheduler did not take: it held the job back for a better placement
    int planner_calls = 0;           // 0: the answer came from the policy's cache (the same question asked before)
};

struct FedSimResult {
    std::vector<JobOutcome> jobs;    // in trace order
    std::vector<DecisionRecord> decisions;  // with FedSimOptions::log_decisions, in order
    std::vector<TimelineSample> timeline;
    RunSummary summary;
};

// Throws InputError naming the trace line of the first job whose home is not a cluster of
// `federation`.
void check_homes(const JobTrace& trace, const Topology& federation);

// Throws InputError for a job whose home is not a cluster of the federation (naming its trace
// line), an unknown policy or network scheduler.
FedSimResult simulate_federation(const SiteState& federation, const JobTrace& trace, const Catalog& catalog,
                                 const FedSimOptions& options);

}  // namespace spiderflow::fedsim
