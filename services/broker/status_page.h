// The broker's read-only status page (GET /status, doc/broker-api.md "Status page"): the
// clusters and their free GPUs, the links declared and measured with the measurement's age, the
// cross-site jobs with their parts, ranks, state, runs and history, and each job's plan as the
// planner draws it. One self-contained HTML document: inline CSS, no script at all, pictures as
// data: URLs, so that it works offline and the broker can forbid every script (its
// Content-Security-Policy). Every text from outside (reasons, node and reservation names an agent
// reported, a cancel's reason a user typed) is escaped (common/util/markup_text.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/topology/topology.h"
#include "services/broker/federation_figures.h"
#include "services/coalloc/xjob.h"

namespace spiderflow::broker {

struct StatusView {
    FederationFigures federation;
    std::map<std::string, int64_t> heard;  // cluster -> its agent's last call
    std::vector<coalloc::XJob> jobs;       // newest first
    size_t jobs_left_out = 0;              // older jobs not shown
    std::map<std::string, std::string> plans;  // job id -> its plan's SVG (xjob_plan_svg)
    std::string reader;                    // the token's name
    bool signed_in = false;                // through the login form's cookie: the page offers a sign-out
    int64_t now = 0;
};

// At most this many jobs on the page, the newest: the page stays a page at any federation size.
inline constexpr size_t kStatusJobs = 100;
// At most this many history lines per job, the newest.
inline constexpr size_t kStatusEvents = 40;

std::string status_page_html(const StatusView& view);
// The sign-in form the page shows without a token; `why`: empty, or why the last try failed.
std::string status_login_html(const std::string& why);
// The plan a job carries (the SPIDERFLOW_PLAN_DATA of its step settings) drawn as job_submit's
// planner drew it; empty when it carries none or it does not read. Never throws.
std::string xjob_plan_svg(const coalloc::XJob& job, const Topology& topology);

}  // namespace spiderflow::broker
