// A job queued again after a failure that was not the user's, and planned anew (without what
// failed) once the failed sites had time to say what they lost.
#include "services/coalloc/coallocator.h"

#include <algorithm>
#include <stdexcept>

#include "services/coalloc/end_causes.h"
#include "services/coalloc/run_words.h"

namespace spiderflow::coalloc {

bool Coallocator::requeue_after_failure(XJob& job, int64_t now) {
    // Only a run that started: a job that never found its start, or was refused, is not helped.
    const bool ran = !job.runs.empty() && job.runs.back().number == run_number(job);
    if (job.requeue || job.reason.empty() || !ran || !requeueable(job.reason)) return false;
    if (job.failure_requeues >= job.on_failure.requeues) {
        if (job.on_failure.requeues > 0) {
            job.reason += " (ended after " + std::to_string(job.failure_requeues + 1) + " runs: --llm-on-failure=requeue "
                          "allows " + std::to_string(job.on_failure.requeues) + " requeues)";
        }
        return false;
    }
    std::string lost;
    for (const Part& p : job.parts) {
        if (p.end_reason.rfind("NODE_FAIL", 0) != 0) continue;
        for (const std::string& node : p.nodes) {
            const std::string name = p.spec.cluster + ":" + node;
            if (std::find(job.lost_nodes.begin(), job.lost_nodes.end(), name) == job.lost_nodes.end()) {
                job.lost_nodes.push_back(name);
                lost += (lost.empty() ? "" : ", ") + name;
            }
        }
    }
    for (const std::string& c : job.lost_clusters) lost += (lost.empty() ? "" : ", ") + c;
    job.failure_requeues += 1;
    job.replan_at = now + policy_.replan_settle_s;
    job.not_before = job.replan_at;
    move(job, XJobState::Queued, now,
         "queued again after a failure (" + std::to_string(job.failure_requeues) + " of " +
             std::to_string(job.on_failure.requeues) + "): " + job.reason + "; planned anew in " +
             std::to_string(policy_.replan_settle_s) + " s" + (lost.empty() ? "" : " without " + lost));
    job.setback = job.reason;
    job.reason.clear();
    return true;
}

bool Coallocator::ready_to_negotiate(XJob& job, int64_t now) {
    if (job.replan_at == 0) return true;
    if (now < job.replan_at) return false;
    const std::vector<Part> before = job.parts;
    const std::vector<std::pair<std::string, std::string>> env_before = job.step_env;
    std::string why;
    if (replanner_) {
        try {
            why = replanner_(job);
        } catch (const std::exception& e) {
            why = e.what();
        }
    }
    if (!why.empty()) {
        job.parts = before;
        job.step_env = env_before;
        job.reason = "could not be planned again after " + job.setback + ": " + why;
        move(job, XJobState::Failed, now, job.reason);
        return false;
    }
    // What the last run left on its clusters is kept apart, to be ended and released.
    for (const Part& p : before) {
        if (part_pending(p)) job.retired.push_back(p);
    }
    for (Part& p : job.parts) p = Part{p.spec};
    job.replan_at = 0;
    job.events.push_back({now, "planned anew: " + layout_of(job) + " on " + placement_of(job)});
    return true;
}

}  // namespace spiderflow::coalloc
