// What a cross-site job's end reason says about its cause: which ends are requeued, which part's
// end is the cause when ranks die together.
#include <gtest/gtest.h>

#include <string>

#include "services/coalloc/coallocator.h"
#include "services/coalloc/end_causes.h"

using namespace spiderflow::coalloc;

TEST(EndCauses, CausesNotTheUsersAreRequeueable) {
    for (const char* reason : {"part 1 on ohio ended: NODE_FAIL", "part 0 on oregon ended: PREEMPTED",
                               "part 1 on ohio ended: BOOT_FAIL", "part 0 on oregon ended: FAILED, exit code 1",
                               "ohio not heard from for over 300 s", "part 1 on ohio ended: REQUEUED by Slurm (restart 1)"}) {
        EXPECT_TRUE(requeueable(reason)) << reason;
    }
    for (const char* reason : {"part 1 on ohio ended: CANCELLED", "part 0 on oregon ended: TIMEOUT",
                               "part 1 on ohio refused: user alice is not allowed", "cancelled: maintenance", ""}) {
        EXPECT_FALSE(requeueable(reason)) << reason;
    }
}

TEST(EndCauses, AProgramFailureIsTheJobsReasonNamingFailed) {
    EXPECT_TRUE(program_failure("part 0 on oregon ended: FAILED, exit code 1"));
    EXPECT_FALSE(program_failure("part 0 on oregon ended: NODE_FAIL"));
    // The word alone, not as a part's end, is not one.
    EXPECT_FALSE(program_failure("FAILED"));
}

TEST(EndCauses, SlurmEndedThePartUnlessItsProgramOrTheBrokerDid) {
    EXPECT_TRUE(ended_by_slurm("NODE_FAIL"));
    EXPECT_TRUE(ended_by_slurm("CANCELLED"));
    EXPECT_TRUE(ended_by_slurm("PREEMPTED"));
    EXPECT_TRUE(ended_by_slurm(std::string(kRequeuedBySlurm) + " (restart 1)"));
    EXPECT_FALSE(ended_by_slurm("FAILED, exit code 1"));
    EXPECT_FALSE(ended_by_slurm(std::string(kCancelledByBroker) + "part 1 lost"));
    EXPECT_FALSE(ended_by_slurm(""));
}
