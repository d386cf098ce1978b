// A DiLoCo plan as JSON, as text, and launched as torchtitan with torchft's DiLoCo.
#include <gtest/gtest.h>

#include <algorithm>

#include "common/plan/launch_diloco.h"
#include "common/plan/launch_writer.h"
#include "common/plan/plan_json.h"
#include "common/plan/plan_text.h"
#include "common/util/errors.h"
#include "tests/unit/common/plan/plan_fixture.h"

using namespace spiderflow;

namespace {

// tp 8, pp 1, dp 4: replicas 0, 1 in east, 2, 3 in west, one per node.
Plan diloco_plan() {
    Plan p;
    p.job.model = test::small_model();
    p.job.seq_len = 2048;
    p.job.global_batch = 64;
    p.job.gpus = 32;
    p.job.sync.mode = SyncMode::diloco;
    p.job.sync.inner_steps = 200;
    p.job.sync.outer_precision = OuterPrecision::int8;
    p.tp = 8;
    p.pp = 1;
    p.dp = 4;
    p.micro_batch = 2;
    p.num_micro_batches = 8;
    p.layers_per_stage = {8};
    for (int r = 0; r < 4; ++r) p.cells.push_back(StageCell{r / 2, r % 2, 0});
    p.policy = "test";
    p.prediction.iteration_s = 2.0;
    p.prediction.tokens_per_s = 65536;
    p.prediction.outer_allreduce_s = 30;
    p.prediction.outer_exposed_s = 30;
    p.prediction.outer_wan_bytes = 4e9;
    p.prediction.compute_utilisation = 0.925;
    return p;
}

bool has(const std::vector<std::string>& words, const std::string& w) {
    return std::find(words.begin(), words.end(), w) != words.end();
}

LaunchRequest torchtitan(int part_cluster) {
    LaunchRequest req;
    req.command = {"-m", "torchtitan.experiments.ft.train", "--job.config_file", "llama3.toml"};
    req.lighthouse = "http://lighthouse.example:29510";
    req.part_cluster = part_cluster;
    return req;
}

}  // namespace

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

TEST(DilocoLaunch, OneReplicaGroupPerSite) {
    const Plan p = diloco_plan();
    const DilocoGroup west = diloco_group(p, 1);
    EXPECT_EQ(west.replica_id, 1);
    EXPECT_EQ(west.group_size, 2);
    EXPECT_EQ(west.nodes, 2);
    EXPECT_EQ(west.gpus_per_node, 8);
    EXPECT_EQ(west.dp, 2);
    EXPECT_THROW(diloco_group(p, 5), InputError);
}

TEST(DilocoLaunch, TorchtitanWithTorchftDiloco) {
    const LaunchScript s = write_launch(diloco_plan(), {}, torchtitan(1));
    ASSERT_EQ(s.steps.size(), 1u);
    const auto& step = s.steps[0];
    for (const char* w : {"--fault_tolerance.enable", "--fault_tolerance.semi_sync_method=diloco",
                          "--fault_tolerance.sync_steps=200", "--fault_tolerance.replica_id=1",
                          "--fault_tolerance.group_size=2", "--fault_tolerance.should_quantize",
                          "--parallelism.tensor_parallel_degree=8", "--parallelism.pipeline_parallel_degree=1",
                          "--parallelism.data_parallel_shard_degree=2", "--training.global_batch_size=64",
                          "--training.seq_len=2048", "--nodes=2", "--ntasks-per-node=1"})
        EXPECT_TRUE(has(step, w)) << w << "\n" << s.text();
    EXPECT_TRUE(has(step, "--training.local_batch_size=2"));  // pp 1: one micro-batch, accumulated
    EXPECT_FALSE(has(step, "--parallelism.pipeline_parallel_microbatch_size=2"));
    EXPECT_FALSE(has(step, "--fault_tolerance.fragment_sync_delay=1"));
    const std::string text = s.text();
    EXPECT_NE(text.find("export TORCHFT_LIGHTHOUSE=http://lighthouse.example:29510"), std::string::npos) << text;
    EXPECT_NE(text.find("export SPIDERFLOW_SYNC=diloco"), std::string::npos) << text;
    EXPECT_NE(text.find("--nproc-per-node=8"), std::string::npos) << text;
    EXPECT_NE(text.find("$SLURM_NODEID"), std::string::npos) << text;
}

TEST(DilocoLaunch, StreamingDelaysTheSyncByTheStepsTheAllReduceTakes) {
    Plan p = diloco_plan();
    p.job.sync.streaming = true;
    p.prediction.outer_exposed_s = 0;
    p.prediction.outer_allreduce_s = 9.5;  // inner step 2 s: 5 steps
    const LaunchScript s = write_launch(p, {}, torchtitan(0));
    EXPECT_TRUE(has(s.steps[0], "--fault_tolerance.fragment_sync_delay=5")) << s.text();
    EXPECT_TRUE(has(s.steps[0], "--fault_tolerance.replica_id=0"));
}

TEST(DilocoLaunch, WithPipelinesALocalBatchIsTheReplicasStep) {
    Plan p = diloco_plan();
    p.pp = 2;
    p.dp = 2;
    p.layers_per_stage = {4, 4};
    p.cells = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}};  // stage-major: replica 0 east, 1 west
    const LaunchScript s = write_launch(p, {}, torchtitan(1));
    EXPECT_TRUE(has(s.steps[0], "--training.local_batch_size=16")) << s.text();  // 2 x 8 micro-batches
    EXPECT_TRUE(has(s.steps[0], "--parallelism.pipeline_parallel_microbatch_size=2")) << s.text();
    EXPECT_TRUE(has(s.steps[0], "--parallelism.data_parallel_shard_degree=1")) << s.text();
}

TEST(DilocoLaunch, RefusesWhatCannotRun) {
    const Plan p = diloco_plan();
    LaunchRequest req = torchtitan(-1);
    try {
        write_launch(p, {}, req);  // two sites, no part: which group?
        FAIL();
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("one torchft replica group per site"), std::string::npos) << e.what();
    }
    req = torchtitan(0);
    req.lighthouse.clear();
    EXPECT_THROW(write_launch(p, {}, req), InputError);
    req = torchtitan(0);
    req.command = {"python", "/opt/Megatron-LM/pretrain_gpt.py"};
    EXPECT_THROW(write_launch(p, {}, req), InputError);
    req = torchtitan(0);
    req.command.push_back("--fault_tolerance.sync_steps=50");
    try {
        write_launch(p, {}, req);
        FAIL();
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("but the plan gives 200"), std::string::npos) << e.what();
    }
    req.command.back() = "--fault_tolerance.sync_steps=200";  // the same value is fine, not repeated
    const LaunchScript s = write_launch(p, {}, req);
    EXPECT_EQ(std::count(s.steps[0].begin(), s.steps[0].end(), "--fault_tolerance.sync_steps=200"), 1);
}
