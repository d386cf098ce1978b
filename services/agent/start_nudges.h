// When to nudge this cluster's scheduler for the parts it starts at a common start. A part waits
// in its reservation, and Slurm starts it only at a scheduling pass after the reservation begins:
// slurmctld looks for reservations that began every 5 s and runs its full pass every
// sched_interval (60 s by default), so each cluster would start its part at its own moment up to
// 5 s after the common start, and the parts apart by as much. Any job update makes slurmctld run
// a pass within about a second (event-triggered scheduling), so the agent updates each part (a
// change of nothing) just after the common start, and twice more a second apart should a pass
// just before it have delayed the next one (batch_sched_delay).
#pragma once

#include <cstdint>
#include <map>
#include <vector>

namespace spiderflow::agent {

class StartNudges {
public:
    // Part job `job_id` starts at `start_at` (unix seconds); said again, nothing changes.
    void expect(uint32_t job_id, int64_t start_at);
    // The jobs to nudge at `now` (unix seconds); each is given at most kTimes times.
    std::vector<uint32_t> due(double now);
    bool empty() const { return pending_.empty(); }

    static constexpr double kAfterStart = 0.2;  // the reservation has begun on slurmctld's clock too
    static constexpr double kEvery = 1.0;
    static constexpr int kTimes = 3;

private:
    struct Pending {
        int64_t start_at = 0;
        double next = 0;  // the next nudge: just after the start, then a second after the last
        int sent = 0;
    };
    std::map<uint32_t, Pending> pending_;
};

}  // namespace spiderflow::agent
