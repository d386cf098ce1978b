// One interface for every coflow scheduler; the simulator asks it for flow rates at each event.
// Schedulers are chosen by name through make_scheduler() (scheduler_factory.cpp).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/coflow/coflow.h"
#include "common/coflow/network.h"

namespace spiderflow::coflow {

// A flow that has bytes left to send.
struct ActiveFlow {
    int id = 0;                      // unique over the run
    int coflow = 0;                  // index into SchedView::coflows
    const std::vector<int>* path = nullptr;  // link ids; never empty for an active flow
    double bytes = 0;                // total size
    double remaining = 0;            // bytes still to send
    double rate = 0;                 // set by the scheduler, bytes/s
};

// A coflow with at least one active flow, plus what schedulers may know about it.
struct ActiveCoflow {
    int id = 0;                      // unique over the run
    int job = -1;                    // index into the workload's jobs; -1 for trace coflows
    int iteration = 0;
    CoflowKind kind = CoflowKind::generic;
    int micro_batch = 0;             // within its iteration
    int layer = 0;
    double release_s = 0;            // when its flows started
    double total_bytes = 0;
    double sent_bytes = 0;           // attained service (Aalo)
    std::vector<int> flows;          // indices into SchedView::flows, active ones only
};

// What a job has left, from information the job declares (period, per-iteration bytes).
struct JobProgress {
    int iterations_total = 0;
    int iterations_done = 0;
    int micro_batches = 1;
    double wan_bytes_per_iteration = 0;
    double compute_s_per_iteration = 0;
    double period_s = 0;             // iteration time alone; 0 = unknown
    double arrival_s = 0;
};

struct SchedView {
    double now = 0;
    const Network* net = nullptr;
    std::vector<ActiveFlow>* flows = nullptr;
    const std::vector<ActiveCoflow>* coflows = nullptr;
    const std::vector<JobProgress>* jobs = nullptr;
};

class Scheduler {
public:
    virtual ~Scheduler() = default;
    virtual std::string name() const = 0;
    // Sets ActiveFlow::rate of every active flow. Rates must respect link capacities.
    virtual void allocate(SchedView& view) = 0;
    // Seconds after which rates must be recomputed even if no flow or coflow event happens
    // (Aalo's queue thresholds); infinity when only events matter. Called after allocate().
    virtual double review_after(const SchedView& view) const;
    // Whether allocate() leaves no link idle that a waiting flow could use; the simulator's
    // invariant check relies on it.
    virtual bool work_conserving() const { return true; }
};

// Builds a scheduler by name; throws InputError listing the known names for an unknown one.
std::unique_ptr<Scheduler> make_scheduler(const std::string& name);
std::vector<std::string> scheduler_names();
std::string scheduler_summary(const std::string& name);  // empty for an unknown name

}  // namespace spiderflow::coflow
