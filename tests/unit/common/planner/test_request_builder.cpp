// build_plan_request: one set of checks and messages for every front end.
#include <gtest/gtest.h>

#include "common/model/catalog.h"
#include "common/planner/request_builder.h"
#include "common/util/errors.h"

using namespace spiderflow;

namespace {

RequestOptions llama(int batch, int gpus) {
    RequestOptions o;
    o.model = "llama3-8b";
    o.global_batch = batch;
    o.gpus = gpus;
    return o;
}

// The field of the InputError that build_plan_request throws, or "" when it does not throw.
std::string failing_field(const RequestOptions& o, const OptionNames& names = OptionNames{}) {
    try {
        (void)build_plan_request(o, Catalog::builtin(), names, "test");
    } catch (const InputError& e) {
        return e.field();
    }
    return "";
}

}  // namespace

TEST(RequestBuilder, FillsTheRequestFromOptions) {
    RequestOptions o = llama(64, 16);
    o.seq_len = 4096;
    o.micro_batch = 2;
    o.objective = "throughput";
    o.allowed_clusters = {"a"};
    o.time_limit_s = 3;
    o.seed = 7;
    const PlanRequest r = build_plan_request(o, Catalog::builtin(), OptionNames{}, "test");
    EXPECT_EQ(r.job.model.name, "llama3-8b");
    EXPECT_EQ(r.job.global_batch, 64);
    EXPECT_EQ(r.job.seq_len, 4096);
    EXPECT_EQ(r.job.gpus, 16);
    EXPECT_EQ(r.job.micro_batch, 2);
    EXPECT_EQ(r.micro_batch, 2) << "a stated micro-batch fixes the planner's choice";
    EXPECT_EQ(r.objective, Objective::throughput_per_gpu);
    EXPECT_EQ(r.allowed_clusters, std::vector<std::string>{"a"});
    EXPECT_EQ(r.time_limit_s, 3);
    EXPECT_EQ(r.seed, 7u);
}

// A front end's recompute choice is stated, as a job spec's "recompute" is: plan_job then plans
// with it as given instead of deciding. Unset, the job's own (not stated) stays.
TEST(RequestBuilder, StatedRecomputeDecides) {
    RequestOptions o = llama(64, 16);
    EXPECT_FALSE(build_plan_request(o, Catalog::builtin(), OptionNames{}, "test").job.recompute_stated);
    for (Recompute how : {Recompute::none, Recompute::selective, Recompute::full}) {
        o.recompute = how;
        const PlanRequest r = build_plan_request(o, Catalog::builtin(), OptionNames{}, "test");
        EXPECT_EQ(r.job.recompute, how);
        EXPECT_TRUE(r.job.recompute_stated);
    }
    EXPECT_FALSE(build_plan_request(o, Catalog::builtin(), OptionNames{}, "test").job.sequence_parallel_stated);
    o.sequence_parallel = false;
    EXPECT_TRUE(build_plan_request(o, Catalog::builtin(), OptionNames{}, "test").job.sequence_parallel_stated);
}

TEST(RequestBuilder, MessagesNameTheOptionAsTheFrontEndSpellsIt) {
    OptionNames sbatch;
    sbatch.model = "--llm-model";
    sbatch.global_batch = "--llm-global-batch";
    sbatch.micro_batch = "--llm-micro-batch";
    RequestOptions o = llama(64, 16);
    o.global_batch.reset();
    EXPECT_EQ(failing_field(o), "--global-batch");
    EXPECT_EQ(failing_field(o, sbatch), "--llm-global-batch");
    o = llama(64, 16);
    o.micro_batch = 3;  // 64 is not divisible by 3
    EXPECT_EQ(failing_field(o, sbatch), "--llm-micro-batch");
    o = llama(64, 16);
    o.model = "gpt-17";
    try {
        (void)build_plan_request(o, Catalog::builtin(), sbatch, "job options");
        FAIL() << "unknown model accepted";
    } catch (const InputError& e) {
        EXPECT_EQ(e.field(), "--llm-model");
        EXPECT_NE(e.problem().find("llama3-8b"), std::string::npos) << "lists the known models: " << e.problem();
    }
    o = llama(64, 16);
    o.objective = "fastest";
    EXPECT_EQ(failing_field(o), "--objective");
}

TEST(RequestBuilder, GpusAreRequiredUnlessTheDegreesFixThem) {
    RequestOptions o = llama(64, 16);
    o.gpus.reset();
    EXPECT_EQ(failing_field(o), "--gpus");
    o.tp = 2;
    o.pp = 2;
    o.dp = 4;
    const PlanRequest r = build_plan_request(o, Catalog::builtin(), OptionNames{}, "test");
    EXPECT_EQ(r.job.gpus, 16);
    EXPECT_EQ(r.tp, 2);
}

TEST(RequestBuilder, AJobSpecIsOverriddenByExplicitOptions) {
    JobSpec spec;
    spec.model = *Catalog::builtin().model("llama3-70b");
    spec.global_batch = 512;
    spec.gpus = 64;
    RequestOptions o;
    o.job = spec;
    o.global_batch = 1024;
    const PlanRequest r = build_plan_request(o, Catalog::builtin(), OptionNames{}, "test");
    EXPECT_EQ(r.job.model.name, "llama3-70b");
    EXPECT_EQ(r.job.global_batch, 1024);
    EXPECT_EQ(r.job.gpus, 64);
    o.model = "llama3-8b";
    EXPECT_EQ(failing_field(o), "--model") << "a model name and a job spec together are refused";
    EXPECT_EQ(failing_field(RequestOptions{}), "--model");
}

TEST(RequestBuilder, PolicyNamesAreChecked) {
    EXPECT_EQ(checked_policy_name("", "spinsearch", OptionNames{}, "test"), "spinsearch");
    EXPECT_EQ(checked_policy_name("greedy", "spinsearch", OptionNames{}, "test"), "greedy");
    EXPECT_THROW(checked_policy_name("magic", "spinsearch", OptionNames{}, "test"), InputError);
}

TEST(RequestBuilder, PrecisionIsAnOptionAsInEstimate) {
    RequestOptions o = llama(64, 16);
    o.precision = "fp32";
    EXPECT_EQ(build_plan_request(o, Catalog::builtin(), OptionNames{}, "test").job.precision, Precision::fp32);
    o.precision = "fp8";
    EXPECT_EQ(failing_field(o), "--precision");
}
