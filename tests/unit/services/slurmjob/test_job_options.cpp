#include <gtest/gtest.h>

#include <map>

#include "common/util/errors.h"
#include "common/model/catalog.h"
#include "common/planner/request_builder.h"
#include "services/slurmjob/hostlist.h"
#include "services/slurmjob/job_options.h"
#include "services/slurmjob/submit_planner.h"

using spiderflow::Catalog;
using spiderflow::InputError;
using spiderflow::PlanRequest;
using spiderflow::build_plan_request;
using spiderflow::Recompute;
using namespace spiderflow::slurmjob;

TEST(JobOptions, SpankVariableNamesFollowSlurm) {
    EXPECT_EQ(spank_option_var("llm-model"), "_SLURM_SPANK_OPTION_spiderflow_llm_model");
    EXPECT_EQ(spank_option_var("llm-global-batch"), "_SLURM_SPANK_OPTION_spiderflow_llm_global_batch");
}

TEST(JobOptions, ReadsSpankEnvAndEnvironmentFallback) {
    const auto o = read_job_options({"_SLURM_SPANK_OPTION_spiderflow_llm_model=llama3-8b", "OTHER=1",
                                     "_SLURM_SPANK_OPTION_spiderflow_llm_global_batch=512"},
                                    {"SPIDERFLOW_SEQ_LEN=4096", "SPIDERFLOW_MODEL=ignored-because-option-given"});
    EXPECT_EQ(o.model, "llama3-8b");
    ASSERT_TRUE(o.global_batch);
    EXPECT_EQ(*o.global_batch, 512);
    ASSERT_TRUE(o.seq_len);
    EXPECT_EQ(*o.seq_len, 4096);
    EXPECT_TRUE(o.any());
}

TEST(JobOptions, NoOptionsMeansUntouched) {
    const auto o = read_job_options({"SLURM_X=1"}, {"PATH=/bin", "SPIDERFLOWER=1"});
    EXPECT_FALSE(o.any());
}

TEST(JobOptions, BadValuesNameTheOption) {
    try {
        read_job_options({"_SLURM_SPANK_OPTION_spiderflow_llm_global_batch=lots"}, {});
        FAIL();
    } catch (const InputError& e) {
        EXPECT_EQ(e.field(), "--llm-global-batch");
    }
    JobOptions o;
    EXPECT_THROW(set_job_option(o, "llm-micro-batch", "0"), InputError);
    EXPECT_THROW(set_job_option(o, "llm-objective", "fastest"), InputError);
    EXPECT_THROW(set_job_option(o, "llm-model", ""), InputError);
    EXPECT_THROW(set_job_option(o, "llm-nope", "1"), InputError);
    EXPECT_THROW(set_job_option(o, "llm-gpus-mode", "fewer"), InputError);
}

TEST(JobOptions, GpusModeFromSbatchOrEnvironment) {
    auto o = read_job_options({"_SLURM_SPANK_OPTION_spiderflow_llm_gpus_mode=at-most"}, {});
    ASSERT_TRUE(o.gpu_mode);
    EXPECT_EQ(*o.gpu_mode, spiderflow::GpuCountMode::at_most);
    o = read_job_options({}, {"SPIDERFLOW_GPUS_MODE=best"});
    ASSERT_TRUE(o.gpu_mode);
    EXPECT_EQ(*o.gpu_mode, spiderflow::GpuCountMode::best);
}

TEST(JobOptions, FailureChoicesFromSbatchOrEnvironmentAndTyposNamed) {
    auto o = read_job_options({"_SLURM_SPANK_OPTION_spiderflow_llm_on_failure=requeue",
                               "_SLURM_SPANK_OPTION_spiderflow_llm_replan=any"}, {});
    EXPECT_EQ(o.on_failure, "requeue");
    EXPECT_EQ(o.replan, "any");
    o = read_job_options({}, {"SPIDERFLOW_ON_FAILURE=end"});
    EXPECT_EQ(o.on_failure, "end");
    try {
        read_job_options({"_SLURM_SPANK_OPTION_spiderflow_llm_on_failure=requeu"}, {});
        FAIL() << "a typo was taken";
    } catch (const spiderflow::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("--llm-on-failure: expected end or requeue, got 'requeu'"), std::string::npos);
    }
}

TEST(JobOptions, EveryTableOptionIsSettable) {
    for (const auto& info : option_table()) {
        JobOptions o;
        const std::map<std::string, std::string> words = {{"llm-objective", "iteration_time"},
                                                          {"llm-sync", "diloco"},
                                                          {"llm-outer-precision", "int8"},
                                                          {"llm-streaming", "yes"},
                                                          {"llm-distributed-optimizer", "no"},
                                                          {"llm-recompute", "selective"},
                                                          {"llm-sequence-parallel", "no"},
                                                          {"llm-gpus-mode", "at-most"},
                                                          {"llm-on-failure", "requeue"},
                                                          {"llm-replan", "any"}};
        const auto w = words.find(info.name);
        const std::string v = w == words.end() ? "8" : w->second;
        EXPECT_NO_THROW(set_job_option(o, info.name, v)) << info.name;
        EXPECT_TRUE(o.any()) << info.name;
        EXPECT_EQ(std::string(info.env).rfind("SPIDERFLOW_", 0), 0u);
    }
}

TEST(JobOptions, MemoryChoicesFromSbatchOrEnvironmentAreStated) {
    auto o = read_job_options({"_SLURM_SPANK_OPTION_spiderflow_llm_distributed_optimizer=no"},
                              {"SPIDERFLOW_RECOMPUTE=selective", "SPIDERFLOW_SEQUENCE_PARALLEL=no"});
    ASSERT_TRUE(o.zero1);
    EXPECT_FALSE(*o.zero1);
    ASSERT_TRUE(o.recompute);
    EXPECT_EQ(*o.recompute, Recompute::selective);
    ASSERT_TRUE(o.sequence_parallel);
    EXPECT_FALSE(*o.sequence_parallel);
    o.model = "llama3-8b";
    o.global_batch = 64;
    o.gpus = 16;
    const PlanRequest r = build_plan_request(o, Catalog::builtin(), sbatch_option_names(), "job options");
    EXPECT_TRUE(r.job.zero1_stated);
    EXPECT_FALSE(r.job.zero1);
    EXPECT_TRUE(r.job.recompute_stated);
    EXPECT_EQ(r.job.recompute, Recompute::selective);
    EXPECT_TRUE(r.job.sequence_parallel_stated);
    EXPECT_FALSE(r.job.sequence_parallel);
    // Left open, neither is stated: the planner chooses.
    const PlanRequest open = build_plan_request(read_job_options({"_SLURM_SPANK_OPTION_spiderflow_llm_model=llama3-8b",
                                                                  "_SLURM_SPANK_OPTION_spiderflow_llm_global_batch=64",
                                                                  "_SLURM_SPANK_OPTION_spiderflow_llm_gpus=16"},
                                                                 {}),
                                                Catalog::builtin(), sbatch_option_names(), "job options");
    EXPECT_FALSE(open.job.zero1_stated);
    EXPECT_FALSE(open.job.recompute_stated);
    EXPECT_FALSE(open.job.sequence_parallel_stated);
    JobOptions bad;
    EXPECT_THROW(set_job_option(bad, "llm-distributed-optimizer", "1"), InputError);
    // The words of releases before selective still mean what they meant; anything else is refused.
    set_job_option(bad, "llm-recompute", "yes");
    EXPECT_EQ(*bad.recompute, Recompute::full);
    set_job_option(bad, "llm-recompute", "no");
    EXPECT_EQ(*bad.recompute, Recompute::none);
    try {
        set_job_option(bad, "llm-recompute", "partial");
        ADD_FAILURE() << "partial was taken";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("none, selective or full"), std::string::npos) << e.what();
    }
}

TEST(JobOptions, DilocoOptionsFromSbatchOrEnvironment) {
    const auto o = read_job_options({"_SLURM_SPANK_OPTION_spiderflow_llm_sync=diloco",
                                     "_SLURM_SPANK_OPTION_spiderflow_llm_inner_steps=500"},
                                    {"SPIDERFLOW_OUTER_PRECISION=int8", "SPIDERFLOW_STREAMING=no"});
    EXPECT_EQ(o.sync, "diloco");
    ASSERT_TRUE(o.inner_steps);
    EXPECT_EQ(*o.inner_steps, 500);
    EXPECT_EQ(o.outer_precision, "int8");
    ASSERT_TRUE(o.streaming);
    EXPECT_FALSE(*o.streaming);
    EXPECT_TRUE(o.any());
    JobOptions bad;
    // A job runs one mode: "either" is for `spiderflow plan`.
    for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{
             {"llm-sync", "either"}, {"llm-sync", ""}, {"llm-inner-steps", "0"}, {"llm-inner-steps", "ten"},
             {"llm-outer-precision", "fp8"}, {"llm-streaming", "1"}}) {
        try {
            set_job_option(bad, name, value);
            ADD_FAILURE() << name << "=" << value << " accepted";
        } catch (const InputError& e) {
            EXPECT_EQ(e.field(), "--" + name);
        }
    }
}

TEST(Tres, GpuCountsInSlurmTresStrings) {
    EXPECT_EQ(gpus_in_tres("gres:gpu:16"), 16);
    EXPECT_EQ(gpus_in_tres("gres/gpu:4"), 4);
    EXPECT_EQ(gpus_in_tres("gres:gpu:a100:8"), 8);
    EXPECT_EQ(gpus_in_tres("cpu=4,gres/gpu=2"), 2);
    EXPECT_EQ(gpus_in_tres("gres:gpu"), 1);
    EXPECT_FALSE(gpus_in_tres("gres:gpuish:3"));
    EXPECT_FALSE(gpus_in_tres("license/foo=3"));
    EXPECT_FALSE(gpus_in_tres(nullptr));
}

TEST(Hostlist, ExpandsRangesPaddingAndLists) {
    using V = std::vector<std::string>;
    EXPECT_EQ(expand_hostlist("n[1-3,7]"), (V{"n1", "n2", "n3", "n7"}));
    EXPECT_EQ(expand_hostlist("gpu-a[08-10],login"), (V{"gpu-a08", "gpu-a09", "gpu-a10", "login"}));
    EXPECT_EQ(expand_hostlist("r[1-2]n[1-2]"), (V{"r1n1", "r1n2", "r2n1", "r2n2"}));
    EXPECT_THROW(expand_hostlist("n[1-3"), InputError);
    EXPECT_THROW(expand_hostlist("n[3-1]"), InputError);
    EXPECT_EQ(expand_tasks_per_node("8(x3),4"), (std::vector<int>{8, 8, 8, 4}));
    EXPECT_THROW(expand_tasks_per_node("8(x"), InputError);
}

