// The run summary's measurement window: warm-up and drain left out, utilisation and throughput
// over the window's own span, JCT over the jobs submitted inside it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "services/fedsim/run_summary.h"

using namespace spiderflow::fedsim;

namespace {

JobOutcome job(double submit, double start, double finish, int gpus, double tokens) {
    JobOutcome j;
    j.id = "j" + std::to_string(static_cast<int>(submit));
    j.submit_s = submit;
    j.start_s = start;
    j.finish_s = finish;
    j.gpus = gpus;
    j.tokens = tokens;
    return j;
}

}  // namespace

TEST(RunSummary, TheWindowLeavesOutWarmUpAndDrain) {
    // Twenty jobs submitted at 0, 100, ..., 1900 s; each holds 10 of 100 GPUs for 200 s from
    // its submission and trains 2,000 tokens (10 a second).
    std::vector<JobOutcome> jobs;
    for (int i = 0; i < 20; ++i) jobs.push_back(job(100.0 * i, 100.0 * i, 100.0 * i + 200, 10, 2000));
    jobs.push_back(job(950, -1, -1, 10, 0));  // inside the window, never started
    const RunSummary s = summarize(jobs, {}, 0, 100);
    EXPECT_DOUBLE_EQ(s.window_start_s, 200) << "the submission a tenth of the way into the trace";
    EXPECT_DOUBLE_EQ(s.window_end_s, 1900) << "the last submission: the drain after it is left out";
    EXPECT_EQ(s.window_jobs, 19u);     // submitted at 200..1900, the never-started one among them
    EXPECT_EQ(s.window_finished, 18u);
    EXPECT_DOUBLE_EQ(s.window_avg_jct_s, 200);
    // Inside [200, 1900] two jobs run at every moment: 20 of 100 GPUs, 20 tokens a second.
    EXPECT_NEAR(s.window_utilisation, 0.2, 1e-9);
    EXPECT_NEAR(s.window_tokens_per_s, 20, 1e-9);
    // Over the whole run utilisation is lower: the warm-up and drain dilute it.
    EXPECT_GT(s.window_utilisation, s.gpu_utilisation);
}

TEST(RunSummary, ATraceTooShortForAWindowHasNone) {
    const RunSummary s = summarize({job(0, 0, 10, 1, 1)}, {}, 10, 8);
    EXPECT_EQ(s.window_jobs, 0u);
    EXPECT_DOUBLE_EQ(s.window_utilisation, 0);
}
