// Job specs: JSON reading and the messages a user sees for a bad spec.
#include <gtest/gtest.h>

#include <string>

#include "common/model/job_spec.h"
#include "common/util/errors.h"

using namespace spiderflow;

namespace {
// The InputError a spec raises, or "" when it is accepted.
std::string error_of(const std::string& text) {
    try {
        parse_job_spec(text, "job.json", Catalog::builtin());
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}
}  // namespace

TEST(JobSpec, ReadsACatalogModel) {
    const JobSpec j = parse_job_spec(
        R"({"model": "LLaMA3-70B", "seq_len": 4096, "global_batch": 1024, "micro_batch": 2, "precision": "bf16",
            "recompute": true, "zero1": true, "gpus": 512, "gpu_mode": "at_most", "optimizer": "adam"})",
        "job.json", Catalog::builtin());
    EXPECT_EQ(j.model.name, "llama3-70b");
    EXPECT_EQ(j.model.layers, 80);
    EXPECT_EQ(j.seq_len, 4096);
    EXPECT_EQ(j.global_batch, 1024);
    EXPECT_EQ(j.micro_batch, 2);
    EXPECT_EQ(j.recompute, Recompute::full);   // true, the word before selective, means full
    EXPECT_TRUE(j.recompute_stated);
    EXPECT_TRUE(j.zero1);
    EXPECT_EQ(j.gpus, 512);
    EXPECT_EQ(j.gpu_mode, GpuCountMode::at_most);
    EXPECT_EQ(j.bytes_per_param(), 2);
}

TEST(JobSpec, ReadsExplicitDimensions) {
    const JobSpec j = parse_job_spec(
        R"({"model": {"layers": 4, "hidden": 256, "heads": 8, "ffn_hidden": 1024, "vocab": 1000},
            "global_batch": 8, "precision": "fp32"})",
        "job.json", Catalog::builtin());
    EXPECT_EQ(j.model.layers, 4);
    EXPECT_EQ(j.model.kv_heads, 8);
    EXPECT_EQ(j.model.name, "custom");
    EXPECT_EQ(j.bytes_per_param(), 4);
    EXPECT_EQ(j.seq_len, 2048);  // default
    EXPECT_EQ(j.recompute, Recompute::none);    // not stated: the planner decides (plan_job)
    EXPECT_FALSE(j.recompute_stated);
    EXPECT_TRUE(parse_job_spec(R"({"model": "llama3-8b", "global_batch": 8, "recompute": false})", "job.json",
                               Catalog::builtin())
                    .recompute_stated);
}

// The memory choices as words: what a plan carries and a job spec may fix.
TEST(JobSpec, MemoryChoicesAreWords) {
    const JobSpec j = parse_job_spec(R"({"model": "llama3-8b", "global_batch": 8, "recompute": "selective",
                                         "sequence_parallel": true, "flash_attention": true})",
                                     "job.json", Catalog::builtin());
    EXPECT_EQ(j.recompute, Recompute::selective);
    EXPECT_TRUE(j.recompute_stated);
    EXPECT_TRUE(j.sequence_parallel);
    EXPECT_TRUE(j.sequence_parallel_stated);
    EXPECT_TRUE(j.flash_attention);
    EXPECT_NE(error_of(R"({"model": "llama3-8b", "global_batch": 8, "recompute": "some"})")
                  .find("unknown recomputation 'some' (none, selective or full)"),
              std::string::npos);
    for (Recompute r : {Recompute::none, Recompute::selective, Recompute::full})
        EXPECT_EQ(recompute_from_string(to_string(r), "t", "f"), r);
}

TEST(JobSpec, BadSpecsGiveTheRightMessage) {
    EXPECT_NE(error_of(R"({"model": "llama3-70b", "global_batch": 1000, "micro_batch": 3})")
                  .find("global_batch 1000 is not divisible by micro_batch 3"),
              std::string::npos);
    EXPECT_NE(error_of(R"({"model": "llama9-1t", "global_batch": 8})").find("unknown model 'llama9-1t'"), std::string::npos);
    EXPECT_NE(error_of(R"({"model": "llama3-8b", "global_batch": 8, "precision": "fp8"})").find("precision"),
              std::string::npos);
    EXPECT_NE(error_of(R"({"model": "llama3-8b", "global_batch": 8, "batch": 3})").find("batch: unknown key"),
              std::string::npos);
    EXPECT_NE(error_of(R"({"model": "llama3-8b"})").find("global_batch: missing"), std::string::npos);
    EXPECT_NE(error_of(R"({"model": "llama3-8b", "global_batch": 0})").find("global_batch"), std::string::npos);
    EXPECT_NE(error_of(R"({"model": "llama3-8b", "global_batch": 8, "seq_len": 1.5})").find("seq_len"), std::string::npos);
    EXPECT_NE(error_of(R"({"model": "llama3-8b", "global_batch": 8, "gpu_mode": "many"})").find("gpu_mode"),
              std::string::npos);
    EXPECT_NE(error_of(R"({"model": "llama3-8b", "global_batch": 8, "gpu_mode": "exact"})").find("gpus"),
              std::string::npos);
    EXPECT_NE(error_of(R"({"model": "llama3-8b", "global_batch": 8, "optimizer": "sgd"})").find("optimizer"),
              std::string::npos);
    EXPECT_NE(error_of(R"({"model": 7, "global_batch": 8})").find("model"), std::string::npos);
    EXPECT_NE(error_of("{\"model\": \"llama3-8b\",\n \"global_batch\": }").find("job.json:2"), std::string::npos);
    EXPECT_EQ(error_of(R"({"model": "llama3-8b", "global_batch": 8})"), "");
    // The wordings every format shares (common/util/json_read.h).
    EXPECT_EQ(error_of(R"({"model": "llama3-8b", "global_batch": 8.0})"), "job.json: global_batch: expected an integer");
    EXPECT_EQ(error_of(R"({"model": "llama3-8b", "global_batch": 8, "gpus": -1})"),
              "job.json: gpus: value -1 out of range [0, 10000000]");
    EXPECT_EQ(error_of(R"({"global_batch": 8})"), "job.json: model: missing");
    EXPECT_EQ(error_of(R"({"model": {"layers": 2, "hidden": 64, "heads": 4, "ffn_hidden": 256}, "global_batch": 8})"),
              "job.json: model.vocab: missing");
}

TEST(JobSpec, ValidateNamesTheField) {
    JobSpec j;
    j.model = *Catalog::builtin().model("llama2-7b");
    j.global_batch = 64;
    j.micro_batch = 5;
    try {
        j.validate();
        FAIL();
    } catch (const InputError& e) {
        EXPECT_EQ(e.field(), "micro_batch");
        EXPECT_EQ(e.problem(), "global_batch 64 is not divisible by micro_batch 5");
    }
    j.micro_batch = 4;
    EXPECT_NO_THROW(j.validate());
    j.seq_len = 0;
    EXPECT_THROW(j.validate(), InputError);
}

TEST(JobSpec, PrecisionNames) {
    EXPECT_EQ(precision_from_string("BF16"), Precision::bf16);
    EXPECT_STREQ(to_string(Precision::fp16), "fp16");
    EXPECT_STREQ(to_string(GpuCountMode::best), "best");
    EXPECT_THROW(precision_from_string("int4"), InputError);
}

// One spelling written, both read: the CLI, job specs and plan files agree on "at-most".
TEST(JobSpec, GpuModeHasOneSpellingAndReadsTheOldOne) {
    EXPECT_STREQ(to_string(GpuCountMode::at_most), "at-most");
    EXPECT_EQ(gpu_count_mode_from_string("at-most", "t", "gpu_mode"), GpuCountMode::at_most);
    EXPECT_EQ(gpu_count_mode_from_string("at_most", "t", "gpu_mode"), GpuCountMode::at_most);
    EXPECT_THROW(gpu_count_mode_from_string("most", "t", "gpu_mode"), InputError);
}
