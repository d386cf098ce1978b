// Slurm hostlist expansion.
#include <gtest/gtest.h>

#include "common/topology/slurm_conf.h"
#include "common/util/errors.h"

using spiderflow::InputError;
using spiderflow::slurm::expand_hostlist;
using V = std::vector<std::string>;

TEST(Hostlist, PlainNamesAndCommas) {
    EXPECT_EQ(expand_hostlist("a,b,c"), (V{"a", "b", "c"}));
    EXPECT_EQ(expand_hostlist("m5"), (V{"m5"}));
    EXPECT_TRUE(expand_hostlist("").empty());
}

TEST(Hostlist, RangeWithZeroPaddingAndList) {
    EXPECT_EQ(expand_hostlist("n[01-04],m5"), (V{"n01", "n02", "n03", "n04", "m5"}));
    auto v = expand_hostlist("n[001-016,20]");
    ASSERT_EQ(v.size(), 17u);
    EXPECT_EQ(v.front(), "n001");
    EXPECT_EQ(v[15], "n016");
    EXPECT_EQ(v.back(), "n20");  // each range pads to its own width, as Slurm does
}

TEST(Hostlist, PaddingFollowsLowerBound) {
    EXPECT_EQ(expand_hostlist("n[8-10]"), (V{"n8", "n9", "n10"}));
    EXPECT_EQ(expand_hostlist("n[08-10]"), (V{"n08", "n09", "n10"}));
}

TEST(Hostlist, SuffixAndSeveralGroups) {
    EXPECT_EQ(expand_hostlist("/dev/nvidia[0-1]"), (V{"/dev/nvidia0", "/dev/nvidia1"}));
    EXPECT_EQ(expand_hostlist("r[1-2]n[1-2]-ib"), (V{"r1n1-ib", "r1n2-ib", "r2n1-ib", "r2n2-ib"}));
}

TEST(Hostlist, MalformedListsNameTheField) {
    for (const char* bad : {"n[01-04", "n01-04]", "n[4-1]", "n[a-b]", "n[1-2[3]]", "n[]", "n[1-]"}) {
        try {
            expand_hostlist(bad, "slurm.conf", 7, "NodeName");
            ADD_FAILURE() << "accepted " << bad;
        } catch (const InputError& e) {
            EXPECT_EQ(e.source(), "slurm.conf") << bad;
            EXPECT_EQ(e.line(), 7) << bad;
            EXPECT_EQ(e.field(), "NodeName") << bad;
        }
    }
}

TEST(Hostlist, HugeExpansionIsRefusedNotAttempted) {
    EXPECT_THROW(expand_hostlist("n[0-999999999999]"), InputError);
    EXPECT_THROW(expand_hostlist("a[0-9999]b[0-9999]"), InputError);
}
