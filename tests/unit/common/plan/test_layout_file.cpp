#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "common/plan/layout_file.h"
#include "common/plan/plan_json.h"
#include "common/plan/sequential_layout.h"
#include "common/util/errors.h"
#include "tests/unit/common/plan/plan_fixture.h"

namespace spiderflow {
namespace {

using nlohmann::json;
using test::two_sites;

// 8 layers, 64 sequences: what the layouts below are written for.
JobSpec small_job() {
    JobSpec job;
    job.model = test::small_model();
    job.global_batch = 64;
    job.seq_len = 2048;
    return job;
}

// tp 4, dp 2, stage 0 in east and stage 1 in west, 4 layers each.
json two_stage_layout() {
    return json::parse(R"({
        "schema": "spiderflow-layout", "version": 1, "tp": 4, "dp": 2,
        "stages": [{"clusters": ["east"], "layers": 4}, {"clusters": ["west"], "layers": 4}]
    })");
}

Plan read(const json& layout, const Topology& topo = two_sites(), const JobSpec& job = small_job()) {
    return plan_from_layout(layout.dump(), "layout.json", topo, job);
}

// The field the InputError names ("" when the layout was accepted).
std::string error_field(const json& layout, const Topology& topo = two_sites()) {
    try {
        read(layout, topo);
    } catch (const InputError& e) {
        EXPECT_EQ(e.source(), "layout.json");
        EXPECT_FALSE(e.problem().empty());
        return e.field();
    }
    return "";
}

TEST(LayoutFile, PlacesEachStageOnItsClusterInOrder) {
    const Plan p = read(two_stage_layout());
    EXPECT_EQ(p.tp, 4);
    EXPECT_EQ(p.pp, 2);
    EXPECT_EQ(p.dp, 2);
    EXPECT_EQ(p.micro_batch, 1);
    EXPECT_EQ(p.num_micro_batches, 32);
    EXPECT_EQ(p.layers_per_stage, (std::vector<int>{4, 4}));
    ASSERT_EQ(p.cells.size(), 4u);
    EXPECT_EQ(p.cell(0, 0).cluster, 0);
    EXPECT_EQ(p.cell(0, 0).first_gpu, 0);
    EXPECT_EQ(p.cell(0, 1).cluster, 0);
    EXPECT_EQ(p.cell(0, 1).node, 0);
    EXPECT_EQ(p.cell(0, 1).first_gpu, 4);
    EXPECT_EQ(p.cell(1, 0).cluster, 1);
    EXPECT_EQ(p.cell(1, 1).first_gpu, 4);
    EXPECT_TRUE(p.hierarchical_dp);
    EXPECT_EQ(p.virtual_stages, 1);
}

// Where a layout file says what the plain layout does, the two are the same plan.
TEST(LayoutFile, AgreesWithTheSequentialLayoutWhereTheyDescribeTheSameCells) {
    json l = two_stage_layout();
    l["tp"] = 8;
    l["stages"][0].erase("layers");
    l["stages"][1].erase("layers");
    const Plan from_file = read(l);
    const Plan sequential = make_sequential_plan(two_sites(), small_job(), 8, 2, 2, 1);
    ASSERT_EQ(from_file.cells.size(), sequential.cells.size());
    for (size_t i = 0; i < sequential.cells.size(); ++i) {
        EXPECT_EQ(from_file.cells[i].cluster, sequential.cells[i].cluster) << i;
        EXPECT_EQ(from_file.cells[i].node, sequential.cells[i].node) << i;
        EXPECT_EQ(from_file.cells[i].first_gpu, sequential.cells[i].first_gpu) << i;
    }
    EXPECT_EQ(from_file.layers_per_stage, sequential.layers_per_stage);
}

// Two stages on one cluster: the second takes the GPUs the first left free.
TEST(LayoutFile, LaterStagesTakeTheGpusEarlierOnesLeft) {
    json l = two_stage_layout();
    l["tp"] = 8;
    l["dp"] = 1;
    l["stages"][1]["clusters"] = {"east"};
    const Plan p = read(l);
    EXPECT_EQ(p.cell(0, 0).cluster, 0);
    EXPECT_EQ(p.cell(0, 0).node, 0);
    EXPECT_EQ(p.cell(1, 0).cluster, 0);
    EXPECT_EQ(p.cell(1, 0).node, 1);
}

TEST(LayoutFile, NodesByNameOrClusterSlashNode) {
    json l = two_stage_layout();
    l["stages"][0].erase("clusters");
    l["stages"][0]["nodes"] = {"east-n1"};
    l["stages"][1].erase("clusters");
    l["stages"][1]["nodes"] = {"west/west-n0", "west-n1"};
    l["dp"] = 3;
    l["micro_batch"] = 1;
    l["tp"] = 2;
    JobSpec job = small_job();
    job.global_batch = 6;
    const Plan p = read(l, two_sites(), job);
    EXPECT_EQ(p.cell(0, 0).node, 1);
    EXPECT_EQ(p.cell(0, 2).first_gpu, 4);
    EXPECT_EQ(p.cell(1, 0).cluster, 1);
    EXPECT_EQ(p.cell(1, 0).node, 0);
    EXPECT_EQ(p.cell(1, 2).node, 0);
    EXPECT_EQ(p.cell(1, 2).first_gpu, 4);
}

TEST(LayoutFile, MemoryChoicesReplaceTheJobsAndMicroBatchDefaultsToIt) {
    JobSpec job = small_job();
    job.micro_batch = 4;
    job.recompute = Recompute::full;
    job.flash_attention = true;
    json l = two_stage_layout();
    Plan p = read(l, two_sites(), job);
    EXPECT_EQ(p.micro_batch, 4);
    EXPECT_EQ(p.num_micro_batches, 8);
    EXPECT_EQ(p.job.recompute, Recompute::full);
    EXPECT_TRUE(p.job.flash_attention);

    l["recompute"] = "selective";
    l["sequence_parallel"] = true;
    l["flash_attention"] = false;
    l["zero1"] = true;
    l["micro_batch"] = 2;
    l["virtual_stages"] = 2;
    l["hierarchical_dp"] = false;
    p = read(l, two_sites(), job);
    EXPECT_EQ(p.job.recompute, Recompute::selective);
    EXPECT_TRUE(p.job.sequence_parallel);
    EXPECT_FALSE(p.job.flash_attention);
    EXPECT_TRUE(p.job.zero1);
    EXPECT_EQ(p.micro_batch, 2);
    EXPECT_EQ(p.job.micro_batch, 2);
    EXPECT_EQ(p.virtual_stages, 2);
    EXPECT_FALSE(p.hierarchical_dp);
}

TEST(LayoutFile, EveryMistakeNamesItsField) {
    const auto with = [](const char* key, json value) {
        json l = two_stage_layout();
        l[key] = std::move(value);
        return l;
    };
    const auto stage = [](int s, const char* key, json value) {
        json l = two_stage_layout();
        l["stages"][s][key] = std::move(value);
        return l;
    };
    json l = two_stage_layout();
    EXPECT_EQ(error_field(l), "");
    EXPECT_EQ(error_field(with("schema", "spiderflow-plan")), "schema");
    EXPECT_EQ(error_field(with("version", 2)), "version");
    EXPECT_EQ(error_field(with("tpp", 2)), "tpp");
    EXPECT_EQ(error_field(with("pp", 3)), "pp");
    EXPECT_EQ(error_field(with("tp", 16)), "tp");           // wider than an 8-GPU node
    EXPECT_EQ(error_field(with("tp", 0)), "tp");
    EXPECT_EQ(error_field(with("dp", 8)), "stages[0].clusters");  // east holds 4 groups of tp 4
    EXPECT_EQ(error_field(with("micro_batch", 3)), "micro_batch");  // 64 % (3 * 2)
    EXPECT_EQ(error_field(with("recompute", "partial")), "recompute");
    EXPECT_EQ(error_field(with("recompute", true)), "recompute");  // a word, unlike version 1 plans
    EXPECT_EQ(error_field(with("virtual_stages", 3)), "virtual_stages");  // 3 does not divide 4 layers
    EXPECT_EQ(error_field(with("stages", json::array())), "stages");
    EXPECT_EQ(error_field(stage(1, "clusters", {"south"})), "stages[1].clusters");
    EXPECT_EQ(error_field(stage(1, "clusters", json::array())), "stages[1].clusters");
    EXPECT_EQ(error_field(stage(1, "clusters", {"west", "west"})), "stages[1].clusters");
    EXPECT_EQ(error_field(stage(0, "nodes", {"east-n0"})), "stages[0]");  // both clusters and nodes
    EXPECT_EQ(error_field(stage(0, "gpus", 8)), "stages[0].gpus");
    EXPECT_EQ(error_field(stage(1, "layers", 5)), "stages");  // 4 + 5 is not the model's 8
    EXPECT_EQ(error_field(stage(1, "layers", 0)), "stages[1].layers");

    json missing_layers = two_stage_layout();
    missing_layers["stages"][1].erase("layers");
    EXPECT_EQ(error_field(missing_layers), "stages[1].layers");

    json neither = two_stage_layout();
    neither["stages"][0].erase("clusters");
    EXPECT_EQ(error_field(neither), "stages[0]");

    json bad_node = two_stage_layout();
    bad_node["stages"][1].erase("clusters");
    bad_node["stages"][1]["nodes"] = {"west-n7"};
    EXPECT_EQ(error_field(bad_node), "stages[1].nodes");
    bad_node["stages"][1]["nodes"] = {"north/west-n0"};
    EXPECT_EQ(error_field(bad_node), "stages[1].nodes");
    bad_node["stages"][1]["nodes"] = {"west/east-n0"};
    EXPECT_EQ(error_field(bad_node), "stages[1].nodes");
    bad_node["stages"][1]["nodes"] = {"west-n0", "west/west-n0"};
    EXPECT_EQ(error_field(bad_node), "stages[1].nodes");

    EXPECT_THROW(plan_from_layout("{\"schema\": ", "layout.json", two_sites(), small_job()), InputError);
}

// The planner's layers are never taken over the file's: more stages than layers is refused.
TEST(LayoutFile, RefusesMoreStagesThanLayers) {
    json l = two_stage_layout();
    l["tp"] = 1;
    l["dp"] = 1;
    l["stages"] = json::array();
    for (int s = 0; s < 9; ++s) l["stages"].push_back({{"clusters", {"east"}}});
    EXPECT_EQ(error_field(l), "stages");
}

// A node name two clusters share must be written CLUSTER/NODE.
TEST(LayoutFile, AmbiguousNodeNeedsItsCluster) {
    Topology t = two_sites();
    t.clusters[1].nodes[0].name = "east-n0";
    t.finalize("twins");
    json l = two_stage_layout();
    l["stages"][0].erase("clusters");
    l["stages"][0]["nodes"] = {"east-n0"};
    EXPECT_EQ(error_field(l, t), "stages[0].nodes");
    l["stages"][0]["nodes"] = {"west/east-n0"};
    EXPECT_EQ(error_field(l, t), "");
    EXPECT_EQ(read(l, t).cell(0, 0).cluster, 1);
}

TEST(LayoutFile, APlanFileIsReadAsAPlanForTheSameJobOnly) {
    const Topology t = two_sites();
    const Plan p = read(two_stage_layout(), t);
    const std::string plan_text = plan_to_json(p, t);
    const Plan back = plan_from_layout_or_plan(plan_text, "plan.json", t, small_job());
    EXPECT_EQ(back.policy, "layout");
    EXPECT_EQ(back.cell(1, 1).cluster, 1);

    const Plan layout = plan_from_layout_or_plan(two_stage_layout().dump(), "layout.json", t, small_job());
    EXPECT_EQ(layout.pp, 2);

    JobSpec other = small_job();
    other.global_batch = 128;
    try {
        plan_from_layout_or_plan(plan_text, "plan.json", t, other);
        ADD_FAILURE() << "a plan of another global batch was taken";
    } catch (const InputError& e) {
        EXPECT_EQ(e.field(), "job.global_batch");
    }
}

}  // namespace
}  // namespace spiderflow
