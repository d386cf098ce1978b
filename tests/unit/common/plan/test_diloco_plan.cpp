// A DiLoCo plan as JSON and as text (its launch: tests/unit/services/launch/test_launch_diloco.cpp).
#include <gtest/gtest.h>

#include "common/plan/plan_json.h"
#include "common/plan/plan_text.h"
#include "common/util/errors.h"
#include "tests/unit/common/plan/plan_fixture.h"

using namespace spiderflow;
using test::diloco_plan;

TEST(DilocoPlan, JsonRoundTripKeepsTheModeAndTheOuterStep) {
    const Topology t = test::two_sites();
    const Plan p = diloco_plan();
    const std::string text = plan_to_json(p, t);
    const Plan back = plan_from_json(text, "p.json", &t);
    EXPECT_TRUE(back.job.sync.diloco());
    EXPECT_EQ(back.job.sync.inner_steps, 200);
    EXPECT_EQ(back.job.sync.outer_precision, OuterPrecision::int8);
    EXPECT_FALSE(back.job.sync.streaming);
    EXPECT_EQ(back.prediction.outer_wan_bytes, 4e9);
    EXPECT_EQ(back.prediction.compute_utilisation, 0.925);
    // A synchronous plan's JSON says nothing of sync (its bytes are what they always were).
    const std::string sync = plan_to_json(test::cross_plan(), t);
    EXPECT_EQ(sync.find("\"sync\""), std::string::npos);
    EXPECT_EQ(sync.find("outer_step"), std::string::npos);
    EXPECT_FALSE(plan_from_json(sync, "s.json", &t).job.sync.diloco());
}

TEST(DilocoPlan, JsonRejectsABadMode) {
    const Topology t = test::two_sites();
    std::string text = plan_to_json(diloco_plan(), t);
    text.replace(text.find("\"diloco\""), 8, "\"gossip\"");
    try {
        plan_from_json(text, "p.json", &t);
        FAIL() << "accepted mode gossip";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("job.sync.mode"), std::string::npos) << e.what();
    }
}

TEST(DilocoPlan, TextSaysWhatItTrainsWithAndWhatTheOuterStepCosts) {
    const std::string text = plan_to_text(diloco_plan(), test::two_sites(), nullptr, "");
    EXPECT_NE(text.find("Training: DiLoCo (H=200, int8 pseudo-gradients)"), std::string::npos) << text;
    EXPECT_NE(text.find("compute utilisation 92.5%"), std::string::npos) << text;
    EXPECT_NE(text.find("4.00 GB over the WAN"), std::string::npos) << text;
    EXPECT_NE(text.find("loss per token does too"), std::string::npos) << text;
    EXPECT_EQ(plan_to_text(test::cross_plan(), test::two_sites(), nullptr, "").find("DiLoCo"), std::string::npos);
}
