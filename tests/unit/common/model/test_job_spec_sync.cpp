// The sync mode of a job spec: synchronous unless the spec says DiLoCo, and clear messages for
// a bad mode, H or pseudo-gradient precision.
#include <gtest/gtest.h>

#include <string>

#include "common/model/job_spec.h"
#include "common/util/errors.h"

using namespace spiderflow;

namespace {
JobSpec spec(const std::string& sync_json) {
    return parse_job_spec(R"({"model": "llama3-8b", "global_batch": 64)" + (sync_json.empty() ? "" : ", \"sync\": " + sync_json) + "}",
                          "job.json", Catalog::builtin());
}

std::string error_of(const std::string& sync_json) {
    try {
        spec(sync_json);
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}
}  // namespace

TEST(JobSpecSync, SynchronousByDefault) {
    const JobSpec j = spec("");
    EXPECT_EQ(j.sync.mode, SyncMode::sync);
    EXPECT_FALSE(j.sync.diloco());
    EXPECT_EQ(j.sync.inner_steps, 100);
    EXPECT_EQ(j.sync.outer_precision, OuterPrecision::fp32);
    EXPECT_FALSE(j.sync.streaming);
}

TEST(JobSpecSync, ReadsTheModeAloneOrTheWholeObject) {
    EXPECT_TRUE(spec(R"("diloco")").sync.diloco());
    EXPECT_FALSE(spec(R"("sync")").sync.diloco());
    const JobSpec j = spec(R"({"mode": "DiLoCo", "inner_steps": 500, "outer_precision": "int8", "streaming": true})");
    EXPECT_TRUE(j.sync.diloco());
    EXPECT_EQ(j.sync.inner_steps, 500);
    EXPECT_EQ(j.sync.outer_precision, OuterPrecision::int8);
    EXPECT_EQ(j.sync.outer_bytes_per_param(), 1);
    EXPECT_TRUE(j.sync.streaming);
    EXPECT_EQ(spec(R"({"mode": "diloco", "outer_precision": "bf16"})").sync.outer_bytes_per_param(), 2);
    EXPECT_EQ(spec(R"({"mode": "diloco"})").sync.outer_bytes_per_param(), 4);
}

TEST(JobSpecSync, BadValuesNameTheFieldAndTheChoices) {
    EXPECT_NE(error_of(R"("async")").find("unknown sync mode 'async' (sync or diloco)"), std::string::npos) << error_of(R"("async")");
    EXPECT_NE(error_of(R"({"mode": "diloco", "inner_steps": 0})").find("sync.inner_steps"), std::string::npos);
    EXPECT_NE(error_of(R"({"mode": "diloco", "outer_precision": "fp8"})").find("(fp32, bf16 or int8)"), std::string::npos);
    EXPECT_NE(error_of(R"({"mode": "diloco", "H": 100})").find("H"), std::string::npos);
    EXPECT_NE(error_of("7").find("sync"), std::string::npos);
    EXPECT_NE(error_of(R"({"streaming": "yes"})").find("sync.streaming"), std::string::npos);
}

TEST(JobSpecSync, ValidateChecksInnerSteps) {
    JobSpec j = spec(R"("diloco")");
    j.sync.inner_steps = 0;
    EXPECT_THROW(j.validate(), InputError);
    j.sync.inner_steps = kMaxInnerSteps + 1;
    EXPECT_THROW(j.validate(), InputError);
    j.sync.inner_steps = 1;
    EXPECT_NO_THROW(j.validate());
}

TEST(JobSpecSync, NamesRoundTrip) {
    for (SyncMode m : {SyncMode::sync, SyncMode::diloco}) EXPECT_EQ(sync_mode_from_string(to_string(m), "t", "f"), m);
    for (OuterPrecision p : {OuterPrecision::fp32, OuterPrecision::bf16, OuterPrecision::int8})
        EXPECT_EQ(outer_precision_from_string(to_string(p), "t", "f"), p);
}
