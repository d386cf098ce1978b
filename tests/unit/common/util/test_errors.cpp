// InputError: what() is the location a person needs to find the bad input, and the parts stay
// apart for callers that place the message themselves (the plugins, the CLI's exit status).
#include <gtest/gtest.h>

#include "common/util/errors.h"

using namespace spiderflow;

TEST(InputError, NamesFileLineAndFieldBeforeTheProblem) {
    const InputError e("site.json", 12, "clusters[2].nodes[0].gpus", "must be > 0");
    EXPECT_STREQ(e.what(), "site.json:12: clusters[2].nodes[0].gpus: must be > 0");
    EXPECT_EQ(e.source(), "site.json");
    EXPECT_EQ(e.line(), 12);
    EXPECT_EQ(e.field(), "clusters[2].nodes[0].gpus");
    EXPECT_EQ(e.problem(), "must be > 0");
}

TEST(InputError, LeavesOutAnUnknownLineAndAnEmptyField) {
    EXPECT_STREQ(InputError("job spec", 0, "", "no model").what(), "job spec: no model");
    EXPECT_STREQ(InputError("job spec", 0, "--gpus", "must be > 0").what(), "job spec: --gpus: must be > 0");
    EXPECT_STREQ(InputError("a.conf", 3, "", "expected key=value").what(), "a.conf:3: expected key=value");
}

TEST(InputError, AnEmptySourceStillSaysWhereItCameFrom) {
    EXPECT_STREQ(InputError("", 0, "", "bad").what(), "<input>: bad");
}

TEST(Errors, BothKindsAreRuntimeErrorsAndStayDistinct) {
    // The CLI maps InputError to exit 2 and InfeasibleError to its own status: a catch of one
    // must not take the other.
    try {
        throw InfeasibleError("needs 100000 GPUs, the topology has 32");
    } catch (const InputError&) {
        FAIL() << "InfeasibleError caught as InputError";
    } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(), "needs 100000 GPUs, the topology has 32");
    }
}
