#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/plan/plan_json.h"
#include "common/util/errors.h"
#include "tests/unit/common/plan/plan_fixture.h"

namespace spiderflow {
namespace {

using test::cross_plan;
using test::two_sites;

// Runs the reader and returns the field the InputError names ("" when it did not throw).
std::string error_field(const std::string& text, const Topology* topo = nullptr) {
    try {
        plan_from_json(text, "plan.json", topo);
    } catch (const InputError& e) {
        EXPECT_EQ(e.source(), "plan.json");
        return e.field();
    }
    return "";
}

nlohmann::json written() {
    const Topology t = two_sites();
    return nlohmann::json::parse(plan_to_json(cross_plan(), t));
}

TEST(PlanJson, WritesEveryRankWithNamesAndCoordinates) {
    const Topology t = two_sites();
    const auto j = nlohmann::json::parse(plan_to_json(cross_plan(), t));
    EXPECT_EQ(j["schema"], "spiderflow-plan");
    EXPECT_EQ(j["version"], Plan::kSchemaVersion);
    EXPECT_EQ(j["degrees"]["world_size"], 32);
    ASSERT_EQ(j["ranks"].size(), 32u);
    // Rank 4 = tp 0 of replica 1, stage 0: east, node 0, GPUs 4..7.
    const auto& r4 = j["ranks"][4];
    EXPECT_EQ(r4["cluster"], "east");
    EXPECT_EQ(r4["node"], "east-n0");
    EXPECT_EQ(r4["gpu"], 4);
    EXPECT_EQ(r4["dp"], 1);
    EXPECT_EQ(r4["pp"], 0);
    // Last rank: stage 1 in west, layers 4..7.
    const auto& last = j["ranks"][31];
    EXPECT_EQ(last["cluster"], "west");
    EXPECT_EQ(last["node"], "west-n1");
    EXPECT_EQ(last["first_layer"], 4);
    EXPECT_EQ(last["num_layers"], 4);
    EXPECT_EQ(last["tp"], 3);
    EXPECT_DOUBLE_EQ(j["prediction"]["breakdown"]["pp_comm_s"].get<double>(), 0.2);
    EXPECT_DOUBLE_EQ(j["prediction"]["scaling_efficiency"].get<double>(), 0.93);
    EXPECT_EQ(j["prediction"]["memory"]["per_stage_per_gpu_bytes"].size(), 2u);
    EXPECT_EQ(j["policy"], "test");
}

TEST(PlanJson, RoundTripKeepsEverything) {
    const Topology t = two_sites();
    const Plan a = cross_plan();
    for (const Topology* topo : {static_cast<const Topology*>(nullptr), &t}) {
        const Plan b = plan_from_json(plan_to_json(a, t), "plan.json", topo);
        EXPECT_EQ(b.tp, a.tp);
        EXPECT_EQ(b.pp, a.pp);
        EXPECT_EQ(b.dp, a.dp);
        EXPECT_EQ(b.micro_batch, a.micro_batch);
        EXPECT_EQ(b.num_micro_batches, a.num_micro_batches);
        EXPECT_EQ(b.layers_per_stage, a.layers_per_stage);
        ASSERT_EQ(b.cells.size(), a.cells.size());
        for (size_t i = 0; i < a.cells.size(); ++i) {
            EXPECT_EQ(b.cells[i].cluster, a.cells[i].cluster) << i;
            EXPECT_EQ(b.cells[i].node, a.cells[i].node) << i;
            EXPECT_EQ(b.cells[i].first_gpu, a.cells[i].first_gpu) << i;
        }
        EXPECT_EQ(b.job.model.name, a.job.model.name);
        EXPECT_EQ(b.job.model.hidden, a.job.model.hidden);
        EXPECT_EQ(b.job.global_batch, a.job.global_batch);
        EXPECT_EQ(b.policy, a.policy);
        EXPECT_DOUBLE_EQ(b.prediction.iteration_s, a.prediction.iteration_s);
        EXPECT_DOUBLE_EQ(b.prediction.mfu, a.prediction.mfu);
        EXPECT_EQ(b.prediction.stage_memory_bytes, a.prediction.stage_memory_bytes);
        // Writing the read plan again gives the same text.
        EXPECT_EQ(plan_to_json(b, t), plan_to_json(a, t));
    }
}

TEST(PlanJson, VirtualStagesTravelWhenInterleavedAndReadAsOneWhenAbsent) {
    const Topology t = two_sites();
    Plan a = cross_plan();
    const std::string plain = plan_to_json(a, t);
    EXPECT_EQ(plain.find("virtual_stages"), std::string::npos);  // older readers see what they knew
    EXPECT_EQ(plan_from_json(plain, "plan.json", &t).virtual_stages, 1);
    a.virtual_stages = 2;
    const Plan b = plan_from_json(plan_to_json(a, t), "plan.json", &t);
    EXPECT_EQ(b.virtual_stages, 2);
    // A plan records its memory choices: nothing is left for a planner to decide.
    EXPECT_TRUE(b.job.zero1_stated);
    EXPECT_TRUE(b.job.recompute_stated);
    EXPECT_TRUE(b.job.sequence_parallel_stated);
    std::string zero = plan_to_json(a, t);
    zero.replace(zero.find("\"virtual_stages\": 2"), 19, "\"virtual_stages\": 0");
    EXPECT_THROW(plan_from_json(zero, "plan.json", &t), InputError);
}

TEST(PlanJson, RefusesOtherVersions) {
    auto j = written();
    j["version"] = Plan::kSchemaVersion + 1;
    EXPECT_EQ(error_field(j.dump()), "version");
    j["version"] = "1";
    EXPECT_EQ(error_field(j.dump()), "version");
    j.erase("version");
    EXPECT_EQ(error_field(j.dump()), "version");
    auto k = written();
    k["schema"] = "something-else";
    EXPECT_EQ(error_field(k.dump()), "schema");
}

TEST(PlanJson, MalformedFieldsAreNamed) {
    {
        auto j = written();
        j["degrees"]["tp"] = 0;
        EXPECT_EQ(error_field(j.dump()), "degrees.tp");
    }
    {
        auto j = written();
        j["degrees"].erase("pp");
        EXPECT_EQ(error_field(j.dump()), "degrees.pp");
    }
    {
        auto j = written();
        j["degrees"]["world_size"] = 31;
        EXPECT_EQ(error_field(j.dump()), "degrees.world_size");
    }
    {
        auto j = written();
        j["layers_per_stage"][1] = 5;  // sums to 9, model has 8
        EXPECT_EQ(error_field(j.dump()), "layers_per_stage");
    }
    {
        auto j = written();
        j["cells"][3]["first_gpu"] = "four";
        EXPECT_EQ(error_field(j.dump()), "cells[3].first_gpu");
    }
    {
        auto j = written();
        j["cells"][5]["stage"] = 0;  // duplicates cell (0, 1)
        EXPECT_EQ(error_field(j.dump()), "cells[5]");
    }
    {
        auto j = written();
        j["cells"].erase(7);
        EXPECT_EQ(error_field(j.dump()), "cells");
    }
    {
        auto j = written();
        j["ranks"][9]["gpu"] = 7;  // disagrees with the cells
        EXPECT_EQ(error_field(j.dump()), "ranks[9].gpu");
    }
    {
        auto j = written();
        j["job"]["model"]["hidden"] = -3;
        EXPECT_EQ(error_field(j.dump()), "job.model.hidden");
    }
    {
        auto j = written();
        j["job"]["precision"] = "fp8";
        EXPECT_EQ(error_field(j.dump()), "job.precision");
    }
    {
        auto j = written();
        j["prediction"]["breakdown"]["bubble_s"] = nullptr;
        EXPECT_EQ(error_field(j.dump()), "prediction.breakdown.bubble_s");
    }
    EXPECT_EQ(error_field("[1, 2, 3]"), "");  // not an object: named by problem, no field
    EXPECT_THROW(plan_from_json("[1, 2, 3]", "plan.json"), InputError);
}

TEST(PlanJson, UnknownKeysAndFloatIntegersAreRefused) {
    {
        auto j = written();
        j["job"]["model"]["hiden"] = 4096;
        EXPECT_EQ(error_field(j.dump()), "job.model.hiden");
    }
    {
        auto j = written();
        j["cells"][0]["gpu"] = 0;
        EXPECT_EQ(error_field(j.dump()), "cells[0].gpu");
    }
    {
        auto j = written();
        j["degrees"]["tp"] = 4.0;
        EXPECT_EQ(error_field(j.dump()), "degrees.tp");
    }
    {
        // What `spiderflow plan --sync either` adds is known, and its content is not read.
        auto j = written();
        j["sync_comparison"] = {{"chosen", "sync"}, {"note", 3}};
        EXPECT_EQ(error_field(j.dump()), "");
    }
    {
        // A newer plan is refused for its version before any key it brings.
        auto j = written();
        j["version"] = Plan::kSchemaVersion + 1;
        j["new_field"] = true;
        EXPECT_EQ(error_field(j.dump()), "version");
    }
}

TEST(PlanJson, SyntaxErrorsGiveTheLine) {
    const std::string text = "{\n  \"schema\": \"spiderflow-plan\",\n  \"version\": 1,\n  oops\n}\n";
    try {
        plan_from_json(text, "bad.json");
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_EQ(e.source(), "bad.json");
        EXPECT_EQ(e.line(), 4);
    }
}

TEST(PlanJson, NumbersBeyondDoubleAreInputErrors) {
    // nlohmann reports 1e999 as out_of_range, not as a parse error.
    const std::string text = "{\n  \"schema\": \"spiderflow-plan\",\n  \"planning_ms\": 1e999\n}\n";
    try {
        plan_from_json(text, "huge.json");
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_EQ(e.source(), "huge.json");
        EXPECT_NE(std::string(e.what()).find("1e999"), std::string::npos) << e.what();
    }
}

TEST(PlanJson, NamesAreCheckedAgainstTheTopology) {
    const Topology t = two_sites();
    {
        auto j = written();
        j["cells"][2]["cluster"] = "north";
        EXPECT_EQ(error_field(j.dump(), &t), "cells[2].cluster");
    }
    {
        auto j = written();
        j["cells"][2]["cluster_index"] = 1;  // east is 0
        EXPECT_EQ(error_field(j.dump(), &t), "cells[2].cluster_index");
        // Without a topology the index is taken as written, and the ranks then disagree.
        j["ranks"] = nlohmann::json::array();
        EXPECT_EQ(error_field(j.dump(), nullptr), "ranks");
    }
    {
        auto j = written();
        j["cells"][1]["node"] = "east-n7";
        EXPECT_EQ(error_field(j.dump(), &t), "cells[1].node");
    }
    {
        auto j = written();
        j["cells"][1]["first_gpu"] = 6;  // 6..9 on an 8-GPU node
        j.erase("ranks");
        EXPECT_EQ(error_field(j.dump(), &t), "cells[1].first_gpu");
    }
}

TEST(PlanJson, CellsSharingGpusAreRefused) {
    // A hand-written plan (spiderflow launch --plan, sbatch --llm-plan) that puts two cells on
    // the same GPUs would start two ranks per GPU.
    const Topology t = two_sites();
    auto j = written();
    j["cells"][5]["first_gpu"] = 2;  // stage 1, replica 1 onto west-n0 GPUs 2..5, under replica 0
    j.erase("ranks");
    try {
        plan_from_json(j.dump(), "plan.json", &t);
        FAIL() << "an overlapping plan was read";
    } catch (const InputError& e) {
        EXPECT_EQ(e.field(), "cells[5]");
        EXPECT_EQ(std::string(e.what()),
                  "plan.json: cells[5]: GPU 2 of west/west-n0 is used by two cells: cell (stage 1, replica 0) and "
                  "cell (stage 1, replica 1)");
    }
}

}  // namespace
}  // namespace spiderflow
