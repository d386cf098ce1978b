// The names orders and reports go by between the broker and the agents.
#include <gtest/gtest.h>

#include "services/coalloc/coallocator.h"

using namespace spiderflow::coalloc;

TEST(OrderReportNames, OrdersHaveTheirWireNames) {
    EXPECT_STREQ(order_name(OrderKind::WillRun), "will_run");
    EXPECT_STREQ(order_name(OrderKind::Reserve), "reserve");
    EXPECT_STREQ(order_name(OrderKind::Release), "release");
    EXPECT_STREQ(order_name(OrderKind::Submit), "submit");
    EXPECT_STREQ(order_name(OrderKind::Cancel), "cancel");
}

TEST(OrderReportNames, EveryReportNameReadsBackAndOthersAreRefused) {
    for (ReportKind k : {ReportKind::Offer, ReportKind::Reserved, ReportKind::ReserveFailed, ReportKind::Released,
                         ReportKind::Submitted, ReportKind::Running, ReportKind::Ended, ReportKind::Refused}) {
        ReportKind back = ReportKind::Offer;
        ASSERT_TRUE(report_from_name(report_name(k), &back)) << report_name(k);
        EXPECT_EQ(back, k) << report_name(k);
    }
    EXPECT_STREQ(report_name(ReportKind::ReserveFailed), "reserve_failed");
    ReportKind untouched = ReportKind::Running;
    EXPECT_FALSE(report_from_name("Offer", &untouched));
    EXPECT_FALSE(report_from_name("", &untouched));
    EXPECT_EQ(untouched, ReportKind::Running);
}

TEST(OrderReportNames, EveryOrderNameReadsBackAndOthersAreRefused) {
    for (OrderKind k : {OrderKind::WillRun, OrderKind::Reserve, OrderKind::Release, OrderKind::Submit, OrderKind::Cancel}) {
        OrderKind back = OrderKind::Cancel;
        ASSERT_TRUE(order_from_name(order_name(k), &back)) << order_name(k);
        EXPECT_EQ(back, k) << order_name(k);
    }
    OrderKind untouched = OrderKind::Submit;
    EXPECT_FALSE(order_from_name("will-run", &untouched));
    EXPECT_FALSE(order_from_name("", &untouched));
    EXPECT_EQ(untouched, OrderKind::Submit);
}
