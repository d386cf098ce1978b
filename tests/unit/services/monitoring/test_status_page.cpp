// The broker's HTML status page: what it shows, the plan picture, and text from outside escaped.
#include <gtest/gtest.h>

#include <memory>

#include "common/plan/plan_json.h"
#include "common/plan/plan_transport.h"
#include "common/util/markup_text.h"
#include "services/broker/status_page.h"
#include "services/coalloc/coallocator.h"
#include "services/launch/launch_contract.h"
#include "tests/unit/common/plan/plan_fixture.h"

using namespace spiderflow;
using namespace spiderflow::broker;

namespace {

const std::string kHostile = "<script>alert(1)</script>\"><img src=x onerror=alert(2)>&";

// A cross-site job over two_sites() carrying cross_plan(), submitted, one part ended with a
// hostile reason (a user's cancel reason, an agent's report: text from outside).
StatusView view_with_job(const std::shared_ptr<const Topology>& t) {
    const Topology& topo = *t;
    coalloc::XJob job;
    job.id = "east:42";
    job.user = "alice";
    job.account = "ml";
    job.home = "east";
    job.time_limit_s = 3600;
    job.script = "#!/bin/sh\n";
    job.parts = {coalloc::Part{{"east", 2, 8, 16}}, coalloc::Part{{"west", 2, 8, 16}}};
    job.step_env = {{env::kPlanData, encode_plan_text(plan_to_json(test::cross_plan(), topo, -1))}};
    coalloc::Coallocator jobs;
    jobs.submit(job, 1000);
    jobs.cancel("east:42", kHostile, 1010);
    FederationState state(t);
    StatusView v;
    v.now = 1060;
    v.federation = federation_figures(state, jobs, v.now);
    v.reader = "tools";
    v.jobs.push_back(*jobs.find("east:42"));
    v.plans["east:42"] = xjob_plan_svg(v.jobs.back(), topo);
    return v;
}

}  // namespace

TEST(StatusPage, ShowsClustersLinksJobsAndThePlan) {
    const auto t = std::make_shared<const Topology>(test::two_sites());
    const StatusView v = view_with_job(t);
    ASSERT_NE(v.plans.at("east:42").find("<svg"), std::string::npos);
    const std::string html = status_page_html(v);
    EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
    EXPECT_NE(html.find("<td>east</td><td class=\"num\">2</td><td class=\"num\">16</td>"), std::string::npos) << html;
    EXPECT_NE(html.find("<td>east-west</td><td class=\"num\">10.00</td><td class=\"num\">60.0</td>"), std::string::npos);
    EXPECT_NE(html.find("not measured"), std::string::npos);
    EXPECT_NE(html.find("data-xjob=\"east:42\""), std::string::npos);
    EXPECT_NE(html.find("<td>16–31</td>"), std::string::npos);  // part 1's ranks
    EXPECT_NE(html.find("src=\"data:image/svg+xml;base64,"), std::string::npos);
    // Self-contained: nothing fetched, nothing run.
    EXPECT_EQ(html.find("<script"), std::string::npos);
    EXPECT_EQ(html.find("src=\"http"), std::string::npos);
    EXPECT_EQ(html.find("<link"), std::string::npos);
}

TEST(StatusPage, TextFromOutsideCannotInjectHtml) {
    const auto t = std::make_shared<const Topology>(test::two_sites());
    const std::string html = status_page_html(view_with_job(t));
    EXPECT_EQ(html.find(kHostile), std::string::npos);
    EXPECT_EQ(html.find("<img src=x"), std::string::npos);
    EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(2)&gt;&amp;"),
              std::string::npos);
    EXPECT_EQ(markup_text("a'b\x01"), "a&apos;b");
    EXPECT_EQ(status_login_html(kHostile).find(kHostile), std::string::npos);
}

TEST(StatusPage, AJobWithoutAReadablePlanSaysSo) {
    const auto t = std::make_shared<const Topology>(test::two_sites());
    coalloc::XJob job;
    job.step_env = {{env::kPlanData, "z1:not-base64!"}};
    EXPECT_EQ(xjob_plan_svg(job, *t), "");
    job.step_env.clear();
    EXPECT_EQ(xjob_plan_svg(job, *t), "");
    StatusView v = view_with_job(t);
    v.plans.clear();
    EXPECT_NE(status_page_html(v).find("no plan picture"), std::string::npos);
}
