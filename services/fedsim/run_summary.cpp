#include "services/fedsim/run_summary.h"

#include "services/fedsim/measurement_window.h"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <sstream>

namespace spiderflow::fedsim {
namespace {

std::string fmt(const char* f, double v) {
    char b[64];
    std::snprintf(b, sizeof b, f, v);
    return b;
}

double quantile(std::vector<double> v, double q) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5)];
}

// The window's figures (RunSummary says what the window is). A job's GPUs count while it holds
// them; its tokens are spread evenly over its run.
void summarize_window(const std::vector<JobOutcome>& jobs, int total_gpus, RunSummary& s) {
    std::vector<double> submits;
    for (const auto& j : jobs) submits.push_back(j.submit_s);
    const MeasurementWindow w = measurement_window(std::move(submits));
    s.window_start_s = w.start_s;
    s.window_end_s = w.end_s;
    const double span = w.span_s();
    if (span <= 0) return;
    double gpu_s = 0, tokens = 0, jct = 0;
    for (const auto& j : jobs) {
        const bool inside = w.holds(j.submit_s);
        s.window_jobs += inside;
        if (j.start_s < 0) continue;
        const double end = j.finish_s < 0 ? s.window_end_s : j.finish_s;
        const double held = overlap_s(j.start_s, end, w.start_s, w.end_s);
        gpu_s += held * j.gpus;
        if (j.finish_s > j.start_s) tokens += j.tokens * held / (j.finish_s - j.start_s);
        if (inside && j.finish_s >= 0) {
            ++s.window_finished;
            jct += j.jct_s();
        }
    }
    if (s.window_finished > 0) s.window_avg_jct_s = jct / static_cast<double>(s.window_finished);
    s.window_tokens_per_s = tokens / span;
    if (total_gpus > 0) s.window_utilisation = gpu_s / (static_cast<double>(total_gpus) * span);
}

}  // namespace

RunSummary summarize(const std::vector<JobOutcome>& jobs, const std::vector<double>& decision_wall_s,
                     double busy_gpu_s, int total_gpus) {
    RunSummary s;
    s.jobs = jobs.size();
    std::vector<double> jct;
    double queue = 0, tokens = 0, first = -1, last = 0;
    for (const auto& j : jobs) {
        if (first < 0 || j.submit_s < first) first = j.submit_s;
        if (!j.unplaceable.empty()) ++s.unplaceable;
        if (j.finish_s < 0) continue;
        ++s.finished;
        if (j.cross_site) ++s.cross_site;
        jct.push_back(j.jct_s());
        queue += j.queue_s();
        tokens += j.tokens;
        last = std::max(last, j.finish_s);
    }
    if (!jct.empty()) {
        s.avg_jct_s = std::accumulate(jct.begin(), jct.end(), 0.0) / static_cast<double>(jct.size());
        s.p95_jct_s = quantile(jct, 0.95);
        s.avg_queue_s = queue / static_cast<double>(jct.size());
        s.makespan_s = last - std::max(0.0, first);
    }
    if (s.makespan_s > 0) {
        s.tokens_per_s = tokens / s.makespan_s;
        if (total_gpus > 0) s.gpu_utilisation = busy_gpu_s / (static_cast<double>(total_gpus) * s.makespan_s);
    }
    summarize_window(jobs, total_gpus, s);
    s.decisions = static_cast<long>(decision_wall_s.size());
    s.planner_wall_s = std::accumulate(decision_wall_s.begin(), decision_wall_s.end(), 0.0);
    if (!decision_wall_s.empty()) {
        s.decision_ms_mean = 1e3 * s.planner_wall_s / static_cast<double>(decision_wall_s.size());
        s.decision_ms_max = 1e3 * *std::max_element(decision_wall_s.begin(), decision_wall_s.end());
    }
    return s;
}

namespace {

// A free-text column on one CSV line: its commas and line breaks would split it.
std::string csv_text(std::string s) {
    std::replace(s.begin(), s.end(), ',', ';');
    std::replace(s.begin(), s.end(), '\n', ' ');
    return s;
}

}  // namespace

std::string jobs_csv(const FedSimResult& r) {
    std::ostringstream o;
    o << "id,model,home,submit_s,start_s,finish_s,queue_s,jct_s,gpus,iterations,alone_iteration_s,"
         "mean_iteration_s,cross_site,placement,unplaceable\n";
    for (const auto& j : r.jobs) {
        const std::string why = csv_text(j.unplaceable);
        o << j.id << ',' << j.model << ',' << j.home << ',' << fmt("%.0f", j.submit_s) << ',' << fmt("%.1f", j.start_s)
          << ',' << fmt("%.1f", j.finish_s) << ',' << fmt("%.1f", j.queue_s()) << ',' << fmt("%.1f", j.jct_s()) << ','
          << j.gpus << ',' << fmt("%.0f", j.iterations) << ',' << fmt("%.4f", j.alone_iteration_s) << ','
          << fmt("%.4f", j.mean_iteration_s) << ',' << (j.cross_site ? "yes" : "no") << ',' << j.placement << ',' << why
          << '\n';
    }
    return o.str();
}

std::string decisions_csv(const FedSimResult& r) {
    std::ostringstream o;
    o << "t_s,job,kind,gpus_min,gpus_max,free,plan,predicted_iteration_s,wall_ms,capped,why,found_by,held,planner_calls\n";
    for (const DecisionRecord& d : r.decisions) {
        o << fmt("%.1f", d.t_s) << ',' << d.job << ',' << (d.admission ? "admission" : "placement") << ','
          << d.gpus_min << ',' << d.gpus_max << ',' << d.free << ',' << d.plan << ','
          << fmt("%.4f", d.predicted_iteration_s) << ',' << fmt("%.3f", d.wall_ms) << ',' << (d.capped ? "yes" : "no")
          << ',' << csv_text(d.why) << ',' << d.found_by << ',' << (d.held ? "yes" : "no") << ','
          << d.planner_calls << '\n';
    }
    return o.str();
}

std::string summary_csv_header() {
    return "policy,network,jobs,finished,unplaceable,cross_site,avg_jct_s,p95_jct_s,avg_queue_s,makespan_s,"
           "tokens_per_s,gpu_utilisation,decisions,planner_calls,planner_wall_s,decision_ms_mean,decision_ms_max,"
           "wan_simulations,wall_s,decisions_capped,window_start_s,window_end_s,window_jobs,window_finished,"
           "window_avg_jct_s,window_tokens_per_s,window_utilisation\n";
}

std::string summary_csv_row(const RunSummary& s) {
    std::ostringstream o;
    o << s.placement << ',' << s.network << ',' << s.jobs << ',' << s.finished << ',' << s.unplaceable << ','
      << s.cross_site << ',' << fmt("%.1f", s.avg_jct_s) << ',' << fmt("%.1f", s.p95_jct_s) << ','
      << fmt("%.1f", s.avg_queue_s) << ',' << fmt("%.1f", s.makespan_s) << ',' << fmt("%.1f", s.tokens_per_s) << ','
      << fmt("%.4f", s.gpu_utilisation) << ',' << s.decisions << ',' << s.planner_calls << ','
      << fmt("%.4f", s.planner_wall_s) << ',' << fmt("%.3f", s.decision_ms_mean) << ','
      << fmt("%.3f", s.decision_ms_max) << ',' << s.wan_simulations << ',' << fmt("%.2f", s.wall_s) << ','
      << s.decisions_capped << ',' << fmt("%.1f", s.window_start_s) << ',' << fmt("%.1f", s.window_end_s) << ','
      << s.window_jobs << ',' << s.window_finished << ',' << fmt("%.1f", s.window_avg_jct_s) << ','
      << fmt("%.1f", s.window_tokens_per_s) << ',' << fmt("%.4f", s.window_utilisation) << '\n';
    return o.str();
}

std::string timeline_csv(const FedSimResult& r) {
    std::ostringstream o;
    o << "t_s,busy_gpus,tokens_per_s,running,queued\n";
    for (const auto& t : r.timeline)
        o << fmt("%.1f", t.t) << ',' << t.busy_gpus << ',' << fmt("%.1f", t.tokens_per_s) << ',' << t.running << ','
          << t.queued << '\n';
    return o.str();
}

std::string summary_text(const RunSummary& s, bool timing) {
    std::ostringstream o;
    o << s.placement << " (network " << s.network << "): " << s.finished << " of " << s.jobs << " jobs finished";
    if (s.unplaceable) o << ", " << s.unplaceable << " unplaceable";
    o << ", " << s.cross_site << " cross-site\n";
    o << "  JCT avg " << fmt("%.0f", s.avg_jct_s) << " s, p95 " << fmt("%.0f", s.p95_jct_s) << " s; queueing avg "
      << fmt("%.0f", s.avg_queue_s) << " s; makespan " << fmt("%.0f", s.makespan_s) << " s\n";
    o << "  " << fmt("%.0f", s.tokens_per_s) << " tokens/s, GPU utilisation " << fmt("%.1f", 100 * s.gpu_utilisation)
      << "%\n";
    if (s.window_end_s > s.window_start_s) {
        o << "  measurement window " << fmt("%.0f", s.window_start_s) << "-" << fmt("%.0f", s.window_end_s) << " s: "
          << s.window_finished << " of " << s.window_jobs << " jobs finished, JCT avg " << fmt("%.0f", s.window_avg_jct_s)
          << " s, " << fmt("%.0f", s.window_tokens_per_s) << " tokens/s, GPU utilisation "
          << fmt("%.1f", 100 * s.window_utilisation) << "%\n";
    }
    o << "  scheduling: " << s.decisions << " decisions, " << s.planner_calls << " planner calls";
    if (timing)
        o << ", " << fmt("%.3f", s.planner_wall_s) << " s in all, " << fmt("%.2f", s.decision_ms_mean) << " ms mean, "
          << fmt("%.1f", s.decision_ms_max) << " ms max per decision";
    if (s.decisions_capped > 0)
        o << "; " << s.decisions_capped << " decisions cut short by the planner's time limit";
    o << "\n";
    return o.str();
}

}  // namespace spiderflow::fedsim
