// job_submit's reading and rewriting of Slurm's job_desc_msg_t, on a job description filled as
// sbatch would fill it, with the host's allocator and environment calls faked
// (tests/unit/plugins/fake_slurm_host.cpp).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "plugins/job_submit/job_desc_edit.h"
#include "plugins/slurm_host.h"

using namespace spiderflow::plugin;

namespace {

// A job description as slurm_init_job_desc_msg() leaves it: every number unset.
struct JobDesc {
    job_desc_msg_t d{};
    JobDesc() {
        d.min_nodes = NO_VAL;
        d.max_nodes = NO_VAL;
        d.num_tasks = NO_VAL;
        d.ntasks_per_node = NO_VAL16;
        d.priority = NO_VAL;
        d.requeue = NO_VAL16;
    }
    ~JobDesc() {
        for (char** f : {&d.tres_per_job, &d.tres_per_node, &d.features, &d.admin_comment}) std::free(*f);
        for (char** env : {d.environment, d.spank_job_env}) {
            for (int i = 0; env != nullptr && env[i] != nullptr; ++i) std::free(env[i]);
            std::free(env);
        }
    }
    JobDesc(const JobDesc&) = delete;
    JobDesc& operator=(const JobDesc&) = delete;
};

char* dup(const char* s) { return strdup(s); }

std::vector<std::string> entries(char** env) { return env_vector(env, 1000); }

// A rewrite to `nodes` nodes of 8 GPUs, one task per GPU, constrained to H100-SXM.
SubmitRewrite eight_per_node(int nodes) {
    SubmitRewrite rw;
    rw.nodes = nodes;
    rw.gpus_per_node = 8;
    rw.num_tasks = 8 * nodes;
    rw.tasks_per_node = 8;
    rw.gpu_type = "H100-SXM";
    return rw;
}

bool has(const std::vector<std::string>& v, const std::string& entry) {
    for (const auto& e : v)
        if (e == entry) return true;
    return false;
}

}  // namespace

TEST(JobDescEdit, ReadsWhatTheUserAskedOfSlurmOnly) {
    JobDesc j;
    SlurmRequest none = slurm_request(&j.d);
    EXPECT_FALSE(none.gpus);
    EXPECT_FALSE(none.nodes);
    EXPECT_FALSE(none.ntasks);
    EXPECT_FALSE(none.ntasks_per_node);

    j.d.tres_per_job = dup("gres/gpu:h100:16");
    j.d.min_nodes = 2;
    j.d.num_tasks = 16;
    j.d.bitflags = JOB_NTASKS_SET;
    const SlurmRequest r = slurm_request(&j.d);
    EXPECT_EQ(r.gpus, 16);
    EXPECT_EQ(r.gpu_type, "h100");
    EXPECT_EQ(r.nodes, 2);
    EXPECT_EQ(r.ntasks, 16);
    EXPECT_EQ(r.gpus_text, "--gpus=h100:16");
    EXPECT_FALSE(r.gpu_count_missing);
}

TEST(JobDescEdit, TasksSbatchFilledInAreNotTheUsers) {
    JobDesc j;
    j.d.min_nodes = 2;
    j.d.num_tasks = 4;  // no JOB_NTASKS_SET: sbatch's own figure
    EXPECT_FALSE(slurm_request(&j.d).ntasks);
    // --ntasks-per-node=2 -N 2: sbatch also sets -n 4, which says nothing more.
    j.d.bitflags = JOB_NTASKS_SET;
    j.d.ntasks_per_node = 2;
    const SlurmRequest r = slurm_request(&j.d);
    EXPECT_EQ(r.ntasks_per_node, 2);
    EXPECT_FALSE(r.ntasks);
}

TEST(JobDescEdit, GpusPerNodeCountOverTheNodesAndATypeAloneHasNoCount) {
    JobDesc j;
    j.d.tres_per_node = dup("gres:gpu:4");
    j.d.min_nodes = 3;
    const SlurmRequest r = slurm_request(&j.d);
    EXPECT_EQ(r.gpus_per_node, 4);
    EXPECT_EQ(r.gpus, 12);
    EXPECT_EQ(r.gpus_text, "--gpus-per-node=4 x -N 3");

    JobDesc t;
    t.d.tres_per_job = dup("gres:gpu:abc");
    const SlurmRequest typed = slurm_request(&t.d);
    EXPECT_TRUE(typed.gpu_count_missing);
    EXPECT_EQ(typed.gpu_type, "abc");
    EXPECT_EQ(typed.gpus_text, "--gpus=abc");
}

TEST(JobDescEdit, RewriteSetsOneLayoutAndCarriesThePlan) {
    JobDesc j;
    j.d.tres_per_job = dup("gres/gpu:h100:16");
    j.d.features = dup("ib");
    slurm_env_array_overwrite(&j.d.environment, "SLURM_GPUS", "h100:16");
    slurm_env_array_overwrite(&j.d.environment, "HOME", "/home/alice");
    SubmitRewrite rw = eight_per_node(2);
    rw.slurm_gpu_type = "h100";
    rw.job_env = {{"SPIDERFLOW_TP", "8"}};
    rw.slurm_env_unset = {"SLURM_GPUS"};
    rw.slurm_env = {{"SLURM_GPUS_PER_NODE", "8"}};
    rw.summary = "spiderflow: planned";
    apply_rewrite(&j.d, rw, true);

    EXPECT_EQ(j.d.tres_per_job, nullptr);
    ASSERT_NE(j.d.tres_per_node, nullptr);
    EXPECT_STREQ(j.d.tres_per_node, "gres/gpu:h100:8");  // the job's own TRES spelling and type
    EXPECT_EQ(j.d.min_nodes, 2u);
    EXPECT_EQ(j.d.max_nodes, 2u);
    EXPECT_EQ(j.d.num_tasks, 16u);
    EXPECT_EQ(j.d.ntasks_per_node, 8);
    EXPECT_STREQ(j.d.features, "(ib)&H100-SXM");
    EXPECT_STREQ(j.d.admin_comment, "spiderflow: planned");
    EXPECT_EQ(entries(j.d.spank_job_env), std::vector<std::string>{"SPIDERFLOW_TP=8"});
    EXPECT_EQ(j.d.spank_job_env_size, 1u);
    const auto env = entries(j.d.environment);
    EXPECT_FALSE(has(env, "SLURM_GPUS=h100:16")) << "the old request would reach srun";
    EXPECT_TRUE(has(env, "HOME=/home/alice"));
    EXPECT_TRUE(has(env, "SLURM_GPUS_PER_NODE=8"));
    EXPECT_TRUE(has(env, "SLURM_SPANK_SPIDERFLOW_TP=8"));
    EXPECT_TRUE(has(env, "SPIDERFLOW_TP=8")) << "the batch script reads the plan under its own names";
    EXPECT_EQ(j.d.env_size, env.size());
    EXPECT_EQ(j.d.priority, NO_VAL) << "a one-cluster job is not held";
    EXPECT_EQ(j.d.requeue, NO_VAL16) << "a one-cluster job keeps Slurm's requeue";
}

TEST(JobDescEdit, ACrossSitePartIsHeldAndTheTypeConstraintIsTheSitesChoice) {
    JobDesc j;
    j.d.tres_per_node = dup("gres:gpu:8");
    SubmitRewrite rw = eight_per_node(1);
    rw.hold = true;
    rw.job_env = {{"SPIDERFLOW_TP", "2"}, {"SPIDERFLOW_PP", "4"}, {"SPIDERFLOW_DP", "4"},
                  {"SPIDERFLOW_CLUSTERS", "alpha,beta"}, {"SPIDERFLOW_XJOB_HOME", "1"}};
    slurm_env_array_overwrite(&j.d.environment, "SPIDERFLOW_TP", "8");  // the user's own, stale
    apply_rewrite(&j.d, rw, false);
    // The home part's batch script starts with the plan's variables, as the other parts' do.
    const auto env = entries(j.d.environment);
    for (const auto& [k, v] : rw.job_env) EXPECT_TRUE(has(env, k + "=" + v)) << k;
    EXPECT_FALSE(has(env, "SPIDERFLOW_TP=8")) << "the plan's value replaces what the user's environment had";
    EXPECT_STREQ(j.d.tres_per_node, "gres:gpu:8");
    EXPECT_EQ(j.d.features, nullptr);
    EXPECT_EQ(j.d.priority, 0u);
    EXPECT_EQ(j.d.requeue, 0) << "Slurm must not requeue one part of a cross-site job on its own";
}
