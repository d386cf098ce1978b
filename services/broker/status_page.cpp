#include "services/broker/status_page.h"

#include <algorithm>
#include <exception>
#include <sstream>

#include "common/plan/plan_json.h"
#include "common/plan/plan_svg.h"
#include "common/plan/plan_transport.h"
#include "common/site/site_types.h"
#include "common/util/base64.h"
#include "common/util/human_format.h"
#include "common/util/markup_text.h"
#include "services/launch/launch_contract.h"

namespace spiderflow::broker {
namespace {

// Plain, dense and readable without any script; states coloured as a terminal would.
constexpr const char* kStyle = R"(
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #1d2330; background: #fbfbfd; }
h1 { font-size: 1.4em; margin: 0 0 .2em; } h2 { font-size: 1.15em; margin: 1.6em 0 .5em; }
h3 { font-size: 1em; margin: 0 0 .4em; }
.meta { color: #5a6270; margin-bottom: 1em; }
table { border-collapse: collapse; margin: .3em 0 .8em; }
th, td { border-bottom: 1px solid #dde1e8; padding: .25em .8em .25em 0; text-align: left; vertical-align: top; }
th { color: #5a6270; font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.none { color: #8a919c; }
.state { display: inline-block; padding: 0 .5em; border-radius: .7em; background: #e5e8ee; font-size: .9em; }
.running, .completed { background: #d5f2dc; } .failed { background: #f8d7d7; }
.negotiating, .reserving, .starting, .queued { background: #fdf0c9; } .ending { background: #fde1c4; }
.xjob { border: 1px solid #dde1e8; border-radius: 6px; padding: .8em 1em; margin: .8em 0; background: #fff; }
.reason { color: #8a2020; }
details { margin: .4em 0; } summary { cursor: pointer; color: #2b4c9a; }
ol.history { margin: .3em 0; padding-left: 1.4em; } ol.history li { margin: .1em 0; }
img.plan { max-width: 100%; border: 1px solid #dde1e8; background: #fff; }
form { display: inline; } input[type=password] { width: 28em; }
)";

std::string esc(std::string_view s) { return markup_text(s); }

std::string age_text(int64_t seconds) {
    if (seconds < 0) seconds = 0;
    if (seconds < 120) return std::to_string(seconds) + " s";
    if (seconds < 7200) return std::to_string(seconds / 60) + " min";
    if (seconds < 172800) return std::to_string(seconds / 3600) + " h";
    return std::to_string(seconds / 86400) + " d";
}

// "2026-12-07 08:30:00 UTC (5 min ago)", or a dash for never.
std::string when(int64_t at, int64_t now) {
    if (at <= 0) return "<span class=\"none\">never</span>";
    return esc(when_text(at)) + " <span class=\"none\">(" + age_text(now - at) + " ago)</span>";
}

std::string gbps(double Bps) { return format_number("%.2f", Bps * 8 / 1e9); }
std::string rtt_ms(double one_way_s) { return format_number("%.1f", 2 * one_way_s * 1e3); }

std::string page_head(const std::string& title) {
    return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
           "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
           "<title>" + esc(title) + "</title><style>" + kStyle + "</style>";
}

void clusters_table(std::ostringstream& o, const StatusView& v) {
    o << "<h2>Clusters</h2>\n<table id=\"clusters\"><tr><th>cluster</th><th>nodes</th><th>GPUs</th><th>free GPUs</th>"
         "<th>last update</th><th>agent last heard</th></tr>\n";
    for (const auto& c : v.federation.clusters) {
        const auto heard = v.heard.find(c.name);
        o << "<tr><td>" << esc(c.name) << "</td><td class=\"num\">" << c.nodes << "</td><td class=\"num\">" << c.gpus
          << "</td><td class=\"num\">"
          << (c.updated_at > 0 ? std::to_string(c.free_gpus) : std::string("<span class=\"none\">not published</span>"))
          << "</td><td>" << when(c.updated_at, v.now) << "</td><td>"
          << when(heard == v.heard.end() ? 0 : std::max(heard->second, c.updated_at), v.now) << "</td></tr>\n";
    }
    o << "</table>\n";
}

void links_table(std::ostringstream& o, const StatusView& v) {
    o << "<h2>Links</h2>\n<table id=\"links\"><tr><th>link</th><th>declared Gbit/s</th><th>declared RTT ms</th>"
         "<th>measured Gbit/s</th><th>measured RTT ms</th><th>measured</th><th>by</th></tr>\n";
    for (const auto& l : v.federation.links) {
        o << "<tr><td>" << esc(l.name) << "</td><td class=\"num\">" << gbps(l.declared_Bps) << "</td><td class=\"num\">"
          << rtt_ms(l.declared_latency_s) << "</td>";
        if (l.measured) {
            o << "<td class=\"num\">" << gbps(l.measured_Bps) << "</td><td class=\"num\">" << rtt_ms(l.measured_latency_s)
              << "</td><td>" << when(l.measured_at, v.now) << "</td><td>" << esc(l.measured_by) << "</td>";
        } else {
            o << "<td colspan=\"4\" class=\"none\">not measured: plans use the declared figures</td>";
        }
        o << "</tr>\n";
    }
    o << "</table>\n";
}

std::string part_state(const coalloc::Part& p) {
    if (p.ended) return p.completed_at > 0 ? "completed" : "ended";
    if (p.running) return "running";
    if (p.job_id != 0) return "submitted";
    if (!p.nodes.empty()) return "reserved";
    if (p.offer != 0) return "offered";
    return "waiting";
}

std::string joined(const std::vector<std::string>& items) {
    std::string out;
    for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
    return out;
}

void job_section(std::ostringstream& o, const coalloc::XJob& job, const StatusView& v) {
    const char* state = coalloc::state_name(job.state);
    o << "<section class=\"xjob\" data-xjob=\"" << esc(job.id) << "\">\n<h3>" << esc(job.id) << " <span class=\"state "
      << state << "\">" << state << "</span></h3>\n";
    o << "<div class=\"meta\">user " << esc(job.user);
    if (!job.account.empty()) o << ", account " << esc(job.account);
    o << " · home " << esc(job.home) << " · run " << coalloc::run_number(job) << " · " << coalloc::world_size(job)
      << " ranks · submitted " << when(job.submitted_at, v.now) << " · " << state << " since "
      << when(job.state_since, v.now);
    if (job.start_at > 0) o << " · common start " << esc(when_text(job.start_at));
    o << "</div>\n";
    if (!job.reason.empty()) o << "<p class=\"reason\">" << esc(job.reason) << "</p>\n";
    o << "<table class=\"parts\"><tr><th>part</th><th>cluster</th><th>nodes × GPUs</th><th>ranks</th><th>state</th>"
         "<th>Slurm job</th><th>reservation</th><th>nodes</th></tr>\n";
    for (size_t k = 0; k < job.parts.size(); ++k) {
        const coalloc::Part& p = job.parts[k];
        const int first = coalloc::first_rank(job, k);
        o << "<tr><td class=\"num\">" << k << "</td><td>" << esc(p.spec.cluster) << "</td><td>" << p.spec.nodes << " × "
          << p.spec.gpus_per_node << "</td><td>" << first << "–" << first + p.spec.ranks - 1 << "</td><td>"
          << part_state(p);
        if (!p.end_reason.empty()) o << ": <span class=\"reason\">" << esc(p.end_reason) << "</span>";
        o << "</td><td>" << (p.job_id != 0 ? std::to_string(p.job_id) : "") << "</td><td>" << esc(p.reservation)
          << "</td><td>" << esc(joined(p.nodes)) << "</td></tr>\n";
    }
    o << "</table>\n";
    if (!job.runs.empty()) {
        o << "<table class=\"runs\"><tr><th>run</th><th>layout</th><th>placement</th><th>started</th><th>ended</th><th>end</th></tr>\n";
        for (const coalloc::Run& r : job.runs) {
            o << "<tr><td class=\"num\">" << r.number << "</td><td>" << esc(r.layout) << "</td><td>" << esc(r.placement)
              << "</td><td>" << when(r.started_at, v.now) << "</td><td>" << (r.ended_at > 0 ? when(r.ended_at, v.now) : "")
              << "</td><td>" << esc(r.end) << "</td></tr>\n";
        }
        o << "</table>\n";
    }
    const size_t shown = std::min(job.events.size(), kStatusEvents);
    o << "<details class=\"history\"" << (coalloc::finished(job.state) ? "" : " open") << "><summary>history ("
      << job.events.size() << " events" << (shown < job.events.size() ? ", the last " + std::to_string(shown) + " shown" : "")
      << ")</summary><ol class=\"history\">\n";
    for (size_t i = job.events.size() - shown; i < job.events.size(); ++i) {
        o << "<li>" << esc(when_text(job.events[i].at)) << ": " << esc(job.events[i].text) << "</li>\n";
    }
    o << "</ol></details>\n";
    const auto plan = v.plans.find(job.id);
    if (plan != v.plans.end() && !plan->second.empty()) {
        // An <img>, not inline SVG: the picture cannot touch the page (no script, no styles).
        o << "<details class=\"plan\"" << (coalloc::finished(job.state) ? "" : " open") << "><summary>plan</summary><img class=\"plan\" alt=\"the plan of " << esc(job.id)
          << "\" src=\"data:image/svg+xml;base64," << base64(plan->second) << "\"></details>\n";
    } else {
        o << "<p class=\"none\">no plan picture: the job carries no plan the broker can read</p>\n";
    }
    o << "</section>\n";
}

}  // namespace

std::string xjob_plan_svg(const coalloc::XJob& job, const Topology& topology) {
    for (const auto& [key, value] : job.step_env) {
        if (key != env::kPlanData) continue;
        try {
            return plan_to_svg(plan_from_json(decode_plan_text(value, "the job's plan"), "the job's plan", &topology), topology);
        } catch (const std::exception&) {
            return "";  // said on the page: no picture
        }
    }
    return "";
}

std::string status_page_html(const StatusView& v) {
    std::ostringstream o;
    const FederationFigures& f = v.federation;
    o << page_head("SpiderFlow federation") << "<meta http-equiv=\"refresh\" content=\"30\"></head><body>\n";
    o << "<h1>SpiderFlow federation</h1>\n<div class=\"meta\" id=\"broker\">broker "
      << (f.active ? "active" : "standby (serving reads)") << " · epoch " << f.epoch << " · " << esc(when_text(v.now))
      << " · read as " << esc(v.reader) << " · refreshes every 30 s";
    if (v.signed_in) o << " · <form method=\"post\" action=\"/status/logout\"><button type=\"submit\">sign out</button></form>";
    o << "</div>\n";
    clusters_table(o, v);
    links_table(o, v);
    o << "<h2>Cross-site jobs</h2>\n<div class=\"meta\" id=\"xjob-states\">";
    bool first = true;
    for (const auto& [state, n] : f.xjobs) {
        if (n == 0) continue;
        o << (first ? "" : " · ") << n << " " << state;
        first = false;
    }
    if (first) o << "none";
    o << "</div>\n";
    for (const coalloc::XJob& job : v.jobs) job_section(o, job, v);
    if (v.jobs_left_out > 0) o << "<p class=\"none\">" << v.jobs_left_out << " older jobs not shown (spiderflow jobs lists them)</p>\n";
    o << "</body></html>\n";
    return o.str();
}

std::string status_login_html(const std::string& why) {
    std::ostringstream o;
    o << page_head("SpiderFlow federation: sign in") << "</head><body>\n<h1>SpiderFlow federation</h1>\n";
    if (!why.empty()) o << "<p class=\"reason\">" << esc(why) << "</p>\n";
    o << "<p>The status page needs a reader token of this broker (a line <code>reader NAME HASH</code> in its tokens "
         "file). It is kept in a cookie this page alone receives, for 8 hours.</p>\n"
         "<form method=\"post\" action=\"/status/login\"><label>token <input type=\"password\" name=\"token\" "
         "autocomplete=\"current-password\" required autofocus></label> <button type=\"submit\">sign in</button></form>\n"
         "</body></html>\n";
    return o.str();
}

}  // namespace spiderflow::broker
