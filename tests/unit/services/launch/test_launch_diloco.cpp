// A DiLoCo plan launched as torchtitan with torchft's DiLoCo.
#include <gtest/gtest.h>

#include <algorithm>

#include "common/util/errors.h"
#include "services/launch/launch_diloco.h"
#include "services/launch/launch_writer.h"
#include "tests/unit/common/plan/plan_fixture.h"

using namespace spiderflow;
using test::diloco_plan;

namespace {

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
