// split_list: the comma lists of Slurm's records and of our options.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/util/split_list.h"

using namespace spiderflow;
using List = std::vector<std::string>;

TEST(SplitList, ItemsInOrderEmptyOnesDropped) {
    EXPECT_EQ(split_list("a,b,,c"), (List{"a", "b", "c"}));
    EXPECT_EQ(split_list(",a,"), (List{"a"}));
    EXPECT_EQ(split_list("gpu:h100:8"), (List{"gpu:h100:8"}));
}

TEST(SplitList, NothingGivenIsNoItems) {
    EXPECT_TRUE(split_list("").empty());
    EXPECT_TRUE(split_list(",,,").empty());
}

TEST(SplitList, SpacesAreKept) {
    // Callers that accept "a, b" trim themselves; Slurm's lists have no spaces.
    EXPECT_EQ(split_list("a, b"), (List{"a", " b"}));
}
