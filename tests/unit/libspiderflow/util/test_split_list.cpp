// Comma lists (Slurm's records, --allow, --policy, --jobs): empty items dropped, nothing trimmed.
#include <gtest/gtest.h>

#include "libspiderflow/util/split_list.h"

using spiderflow::split_list;
using List = std::vector<std::string>;

TEST(SplitList, DropsEmptyItemsOnly) {
    EXPECT_EQ(split_list("a,b,,c"), (List{"a", "b", "c"}));
    EXPECT_EQ(split_list(",a,"), (List{"a"}));
    EXPECT_EQ(split_list(" a , b"), (List{" a ", " b"}));
    EXPECT_TRUE(split_list("").empty());
    EXPECT_TRUE(split_list(",,").empty());
}
