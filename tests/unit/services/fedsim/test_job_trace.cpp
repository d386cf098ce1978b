// The job-trace CSV reader and writer, and the Helios log reader and generator.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "services/fedsim/helios_trace.h"
#include "services/fedsim/measurement_window.h"
#include "services/fedsim/job_trace.h"
#include "common/util/errors.h"

using namespace spiderflow;
using namespace spiderflow::fedsim;

namespace {

JobTrace parse(const std::string& text) {
    std::istringstream in(text);
    return parse_job_trace(in, "t.csv", Catalog::builtin());
}

void expect_error(const std::string& text, int line, const std::string& field) {
    try {
        parse(text);
        FAIL() << "accepted:\n" << text;
    } catch (const InputError& e) {
        EXPECT_EQ(e.line(), line) << e.what();
        EXPECT_EQ(e.field(), field) << e.what();
    }
}

TEST(JobTrace, ReadsColumnsByNameWithDefaults) {
    const JobTrace t = parse("# a comment\nhome,gpus,model,submit_s,tokens\nA,32-64,llama3-8b,5,1048576000\n");
    ASSERT_EQ(t.jobs.size(), 1u);
    const TraceJob& j = t.jobs[0];
    EXPECT_EQ(j.id, "job1");
    EXPECT_EQ(j.gpus_min, 32);
    EXPECT_EQ(j.gpus_max, 64);
    EXPECT_EQ(j.work_unit, WorkUnit::tokens);
    EXPECT_EQ(j.global_batch, 512);
    EXPECT_EQ(j.seq_len, 2048);
    EXPECT_EQ(j.line, 3);
}

TEST(JobTrace, WritesWhatItReads) {
    const std::string text = "id,submit_s,model,gpus,home,iterations,tokens,duration_s,global_batch,seq_len,priority\n"
                             "a,0,llama3-8b,8,A,100,,,64,4096,2\n"
                             "b,12.5,llama3-70b,64-128,B,,,3600,512,2048,0\n";
    EXPECT_EQ(job_trace_csv(parse(text)), text);
}

TEST(JobTrace, RefusesBadFieldsNamingLineAndColumn) {
    expect_error("submit_s,model,gpus,home,iterations,gpu\n", 1, "gpu");                        // typo'd column
    expect_error("submit_s,model,gpus,home\n", 1, "iterations");                               // no work
    expect_error("submit_s,model,gpus,home,iterations\n0,llama9,8,A,1\n", 2, "model");
    expect_error("submit_s,model,gpus,home,iterations\n0,llama3-8b,64-8,A,1\n", 2, "gpus");
    expect_error("submit_s,model,gpus,home,iterations\n0,llama3-8b,8.5,A,1\n", 2, "gpus");
    expect_error("submit_s,model,gpus,home,iterations\n-1,llama3-8b,8,A,1\n", 2, "submit_s");
    expect_error("submit_s,model,gpus,home,iterations,tokens\n0,llama3-8b,8,A,1,5\n", 2, "iterations");
    expect_error("submit_s,model,gpus,home,iterations\n0,llama3-8b,8,A,0\n", 2, "iterations");
    expect_error("submit_s,model,gpus,home,iterations\n0,llama3-8b,8,,4\n", 2, "home");
    expect_error("", 0, "");
}

TEST(HeliosTrace, ReadsTheClusterLogSchema) {
    char path[] = "/tmp/sf-helios-XXXXXX";
    const int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    close(fd);
    {
        std::ofstream f(path);
        f << "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n"
             "1,u1,vcA,8,16,1,COMPLETED,2020-04-01 00:00:10,2020-04-01 00:00:11,2020-04-01 01:00:11,3600,0\n"
             "2,u2,vcB,1,4,1,COMPLETED,2020-04-01 00:01:00,,,60,0\n"          // one GPU: not LLM training
             "3,u3,vcA,16,32,2,FAILED,2020-04-01 00:02:00,,,100,0\n"          // did not complete
             "4,u4,vcB,24,48,3,COMPLETED,2020-04-02 00:00:10,,,7200,0\n";
    }
    HeliosReadOptions o;
    o.homes = {{"A", 64}, {"B", 64}};
    const JobTrace t = read_helios_log(path, o);
    std::remove(path);
    ASSERT_EQ(t.jobs.size(), 2u);
    EXPECT_EQ(t.jobs[0].submit_s, 0);
    EXPECT_EQ(t.jobs[0].gpus_min, 8);
    EXPECT_EQ(t.jobs[0].work_unit, WorkUnit::duration_s);
    EXPECT_EQ(t.jobs[0].work, 3600);
    EXPECT_EQ(t.jobs[0].model, "llama3-8b");
    EXPECT_EQ(t.jobs[1].submit_s, 86400);
    EXPECT_EQ(t.jobs[1].gpus_min, 32);               // 24 rounds to the nearest power of two
    EXPECT_NE(t.jobs[0].home, t.jobs[1].home);       // each vc keeps one home
}

TEST(HeliosTrace, GeneratedStreamsAreSeededAndShapedAsStated) {
    HeliosGenOptions o;
    o.jobs = 400;
    o.homes = {{"A", 256}, {"B", 256}};
    const JobTrace a = generate_helios_like(o), b = generate_helios_like(o);
    EXPECT_EQ(job_trace_csv(a), job_trace_csv(b));
    o.seed = 2;
    EXPECT_NE(job_trace_csv(a), job_trace_csv(generate_helios_like(o)));
    int eight = 0;
    for (size_t i = 0; i < a.jobs.size(); ++i) {
        const TraceJob& j = a.jobs[i];
        EXPECT_EQ(j.gpus_min & (j.gpus_min - 1), 0) << "not a power of two: " << j.gpus_min;
        EXPECT_LE(j.gpus_min, 256);                   // half the federation by default
        EXPECT_GE(j.work, 600);
        if (i) EXPECT_GE(j.submit_s, a.jobs[i - 1].submit_s);
        eight += j.gpus_min == 8;
    }
    EXPECT_NEAR(eight / 400.0, 0.45, 0.08);           // the stated share of 8-GPU jobs
}

// The offered load is what the jobs ask inside the measurement window, counted here from the
// trace alone: a stream of a few hundred jobs of hours to days offers it there, not only on
// average over an endless one.
TEST(HeliosTrace, GeneratedStreamsOfferTheLoadInsideTheMeasurementWindow) {
    for (double load : {0.6, 0.9, 1.2}) {
        HeliosGenOptions o;
        o.jobs = 300;
        o.load = load;
        o.homes = {{"A", 512}, {"B", 256}, {"C", 128}};
        const JobTrace t = generate_helios_like(o);
        std::vector<double> submits;
        for (const auto& j : t.jobs) submits.push_back(j.submit_s);
        const MeasurementWindow w = measurement_window(submits);
        ASSERT_GT(w.span_s(), 0);
        double asked = 0;
        for (const auto& j : t.jobs) {
            ASSERT_EQ(j.work_unit, WorkUnit::duration_s);
            asked += j.gpus_min * overlap_s(j.submit_s, j.submit_s + j.work, w.start_s, w.end_s);
        }
        EXPECT_NEAR(asked / (896 * w.span_s()), load, 0.02 * load) << "offered load " << load;
    }
}

}  // namespace
