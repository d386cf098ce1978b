// What a cross-site job's end reason says about its cause. The words of an Ended report are the
// agent's: Slurm's job state ("FAILED, exit code 1", "CANCELLED", "NODE_FAIL", "PREEMPTED",
// "TIMEOUT"), or kCancelledByBroker for a part the agent ended on the broker's order; the job's
// reason is describe_part() + " ended: " + those words, or a silent cluster's.
#pragma once

#include <string>

namespace spiderflow::coalloc {

// How an agent's Ended report starts for a part Slurm queued again itself (JobRequeue=1 and a lost
// node, a requeueing preemption, an admin's `scontrol requeue`): pending again after it ran, it
// can never rejoin its world, so it is a failed part (the agent then cancels it).
inline constexpr const char* kRequeuedBySlurm = "REQUEUED by Slurm";

// How an agent's Ended report starts for a part its agent ended itself after part_fence_after
// without the broker (part_fence.h): the broker has ended, or is about to end, the other parts.
inline constexpr const char* kIsolatedFromBroker = "ISOLATED from the broker";

// The job ends because a part's own program failed (" ended: FAILED...").
bool program_failure(const std::string& job_reason);
// Slurm ended the part (an Ended report's reason), not its program, nor this broker.
bool ended_by_slurm(const std::string& reason);
// Causes that are not the user's: Slurm took the part (a node lost, a preemption, a node that
// did not boot, a part it requeued itself), its agent ended it cut off from the broker (ISOLATED),
// the part's program died (ranks die with their lost peers, and the cause may show
// only later, or never: a part ended on this broker's order hides its own), or its cluster fell
// silent. Not: the user's scancel (CANCELLED), the time limit, a refusal, a completion.
bool requeueable(const std::string& job_reason);

}  // namespace spiderflow::coalloc
