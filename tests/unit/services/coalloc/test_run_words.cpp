// The words a cross-site job's events and runs use for its parts, layout and placement, and
// what of a part is still to be done on its cluster.
#include <gtest/gtest.h>

#include "services/coalloc/run_words.h"
#include "services/coalloc/xjob.h"

using namespace spiderflow::coalloc;

namespace {

XJob planned() {
    XJob j;
    j.parts.push_back(Part{PartSpec{"alpha", 2, 4, 8}});
    j.parts.push_back(Part{PartSpec{"beta", 3, 8, 24}});
    j.step_env = {{"SPIDERFLOW_DP", "4"}, {"SPIDERFLOW_TP", "2"}, {"SPIDERFLOW_PP", "4"}, {"SPIDERFLOW_OTHER", "x"}};
    return j;
}

}  // namespace

TEST(RunWords, PartLayoutAndPlacement) {
    const XJob j = planned();
    EXPECT_EQ(describe_part(j, 1), "part 1 on beta");
    EXPECT_EQ(layout_of(j), "tp=2 pp=4 dp=4");
    EXPECT_EQ(placement_of(j), "alpha:2x4,beta:3x8");
}

TEST(RunWords, ALayoutWithoutThePlansSettingsLeavesTheFiguresEmpty) {
    XJob j = planned();
    j.step_env.clear();
    EXPECT_EQ(layout_of(j), "tp= pp= dp=");
}

TEST(RunWords, APartIsPendingWhileItsJobRunsOrAReservationIsLeft) {
    Part p{PartSpec{"alpha", 1, 8, 8}};
    EXPECT_FALSE(part_pending(p));
    p.job_id = 7;
    EXPECT_TRUE(part_pending(p));
    p.ended = true;
    EXPECT_FALSE(part_pending(p));
    p.to_release.push_back("spiderflow-x-a1-p0");
    EXPECT_TRUE(part_pending(p));
}
