// The comment a cross-site part's Slurm job carries, between the agent and the part's batch step.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include "services/slurmjob/part_comment.h"

using namespace spiderflow::slurmjob;

TEST(PartComment, RoundTripsAndRefusesOtherComments) {
    PartComment c;
    ASSERT_TRUE(parse_part_comment(format_part_comment({"oregon:7", 1, 2, ""}), &c));
    EXPECT_EQ(c.xjob, "oregon:7");
    EXPECT_EQ(c.part, 1u);
    EXPECT_EQ(c.attempt, 2);
    EXPECT_TRUE(c.ended.empty());
    EXPECT_FALSE(parse_part_comment("my training run", &c));
    EXPECT_FALSE(parse_part_comment("spiderflow-xjob a:1 part 1 attempt 2 extra", &c));
    EXPECT_FALSE(parse_part_comment("spiderflow-xjob a:1 part -1 attempt 2", &c));
    EXPECT_FALSE(parse_part_comment("spiderflow-xjob a:1 part 1 attempt 2 ended ", &c));
}

TEST(PartComment, ABatchScriptsFailureTravelsInIt) {
    PartComment c;
    ASSERT_TRUE(parse_part_comment(format_part_comment({"oregon:7", 0, 1, exit_words(1 << 8)}), &c));
    EXPECT_EQ(c.ended, "exit code 1");
    EXPECT_EQ(c.xjob, "oregon:7");
    EXPECT_EQ(exit_words(9), "signal 9");  // killed by SIGKILL: WIFSIGNALED
}
