// Self-fencing of cross-site parts. The broker ends a job's other parts once this cluster has been
// silent for its cluster_silent_after; this cluster's part, cut off together with its agent, would
// otherwise run on alone (its ranks waiting on peers that are gone, or worse, beside the job's
// next run), and a reservation made for a part would hold its nodes, until the link came back.
// So an agent that has not reached the broker for part_fence_after ends its cluster's parts and
// removes their reservations itself, and once the broker answers again reports each such end as
// ISOLATED, a cause that is not the user's (a job with --llm-on-failure=requeue is planned anew).
// Checked from a thread of its own every second: an agent cycle waits out a call's timeouts on
// a dead link (tens of seconds), and the fence must not wait with it.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>

#include "services/agent/part_runner.h"

namespace spiderflow::agent {

class PartFence {
public:
    using Clock = std::chrono::steady_clock;
    using Log = std::function<void(const std::string&)>;

    // after_s: agent.conf part_fence_after (0 = never). The silence counts from now.
    PartFence(double after_s, Log log, Clock::time_point now = Clock::now());
    void set_after(double after_s);
    // The broker answered (an order read): the silence starts again.
    void heard(Clock::time_point now);
    // Isolated past part_fence_after: ends every part job not yet ended and removes every
    // cross-site reservation, again each call while isolated (a part Slurm has not ended yet, a
    // reservation an order in flight made). Never throws: slurmctld's failures wait for the next call.
    void check(SlurmHands& hands, Clock::time_point now);
    // The words of an ended part's report when the fence ended it; empty otherwise.
    std::string reason_for(uint32_t job_id) const;

private:
    mutable std::mutex mu_;
    double after_s_;
    Clock::time_point heard_at_;
    std::map<uint32_t, std::string> ended_;  // part job id -> its report's words
    bool said_ = false;                      // this isolation logged
    Log log_;
};

}  // namespace spiderflow::agent
