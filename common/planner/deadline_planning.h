// Planning under a deadline on threads the caller owns. job_submit runs under slurmctld's locks
// and must answer within its budget; a search that overruns keeps going on its own thread (its
// inputs are its own copies) and is joined later: by the next call that finds it done, or by
// join_all() before the code it runs is unloaded (a plugin's fini()). Nothing is detached.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/planner/planner.h"

namespace spiderflow {

struct DeadlineOutcome {
    enum class Kind { planned, infeasible, bad_input, failed, late };
    Kind kind = Kind::failed;
    std::string message;   // for every kind but planned
    PlanResult result;     // planned only
};

class DeadlinePlanner {
public:
    DeadlinePlanner() = default;
    DeadlinePlanner(const DeadlinePlanner&) = delete;
    DeadlinePlanner& operator=(const DeadlinePlanner&) = delete;
    ~DeadlinePlanner() { join_all(); }

    // Runs work() on a new owned thread and waits at most budget_s for it. work must own what it
    // reads (capture by value, shared_ptr to const data). InfeasibleError and InputError become
    // infeasible and bad_input, any other exception failed; past the budget, late.
    DeadlineOutcome plan(std::function<PlanResult()> work, double budget_s);

    // Threads still planning (abandoned at the deadline or not yet reaped).
    int running() const;
    // Waits for every thread. Safe to call more than once.
    void join_all();

private:
    struct Worker {
        std::thread thread;
        std::shared_ptr<std::atomic<bool>> done;
    };
    void reap_finished();  // joins threads that are done; needs mu_

    mutable std::mutex mu_;
    std::vector<Worker> workers_;
};

}  // namespace spiderflow
