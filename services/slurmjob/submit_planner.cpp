// The submit decision for one job (see submit_planner.h): the site checks, the plan (request
// reconciliation), the Slurm request it becomes (request shaping), the verdict on a cross-site
// plan that does not pay, and what the user and the logs are told. decision_cache.cpp keeps the
// decisions; planner_budget.cpp runs the planner under the budget.
#include "services/slurmjob/submit_planner.h"

#include "services/launch/launch_contract.h"

#include <chrono>
#include <cstdio>
#include <ctime>

#include "common/model/catalog.h"
#include "common/plan/nccl_env.h"
#include "common/planner/plan_compare.h"
#include "common/site/site_state.h"
#include "services/slurmjob/plan_step_env.h"
#include "services/slurmjob/plan_summary.h"
#include "services/slurmjob/planner_budget.h"
#include "services/slurmjob/request_reconcile.h"
#include "services/slurmjob/request_shape.h"

namespace spiderflow::slurmjob {

const char* to_string(Outcome o) {
    switch (o) {
        case Outcome::untouched: return "untouched";
        case Outcome::rewrite: return "rewrite";
        case Outcome::reject: return "reject";
        case Outcome::fail_open: return "fail_open";
    }
    return "?";
}

namespace {

std::string fmt(double v, int digits = 3) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    return buf;
}

// The mode the user chose, said back when it is not the usual one.
std::string diloco_words(const Plan& plan) {
    if (!plan.job.sync.diloco()) return "";
    return " (DiLoCo: every " + std::to_string(plan.job.sync.inner_steps) + " steps the replicas average " +
           to_string(plan.job.sync.outer_precision) + " pseudo-gradients" +
           (plan.job.sync.streaming ? ", streaming" : "") + ")";
}

// Where the user let SpiderFlow choose the count (--llm-gpus-mode) and it chose another.
std::string chosen_count_words(const SlurmRequest& req, const Plan& plan) {
    if (!req.gpus || *req.gpus == plan.world_size()) return "";
    return " (on " + gpu_words(plan.world_size()) + ", not the " + std::to_string(*req.gpus) +
           " asked for: --llm-gpus-mode let SpiderFlow choose)";
}

// The better request of a verdict in sbatch's words: where to submit it and with what.
std::string sbatch_ask(const PlanComparison& better, const std::string& here) {
    const std::string gpus = "--gpus=" + std::to_string(better.gpus);
    const bool one_site = better.clusters.find(',') == std::string::npos;
    const std::string where = one_site && better.clusters != here ? " on cluster '" + better.clusters + "' (submit it there)" : "";
    return gpus + where + ", or add --llm-gpus-mode=at-most to let SpiderFlow choose the count";
}

}  // namespace

SubmitDecision decide_uncached(const JobOptions& opts, const SlurmRequest& req,
                               const std::shared_ptr<const SubmitSite>& site, const SpiderflowConf& cfg) {
    SubmitDecision d;
    const auto t0 = std::chrono::steady_clock::now();
    auto finish = [&](Outcome o, std::string msg) {
        d.outcome = o;
        d.message = std::move(msg);
        d.planning_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        return d;
    };
    try {
        if (!opts.any() || !cfg.enabled) return finish(Outcome::untouched, "");
        if (!site) return finish(Outcome::fail_open, "no usable topology");
        const Topology* topology = &site->state->topology();
        if (topology->clusters.empty()) return finish(Outcome::fail_open, "topology has no clusters");
        const int cluster = site_cluster_index(cfg, *topology);
        if (cluster < 0) return finish(Outcome::fail_open, "cluster '" + cfg.cluster + "' is not in the topology");
        // Drained and down nodes count for nothing here: the job could never start on them.
        const Cluster& here = site->usable->clusters[static_cast<size_t>(cluster)];
        // GPUs the catalog does not know (a slurm.conf with Gres=gpu:4 and no type) cannot be
        // rated: the site's topology is at fault, not the job.
        for (const Node& n : here.nodes) {
            if (n.gpus > 0 && Catalog::builtin().gpu(n.gpu_type) == nullptr) {
                return finish(Outcome::fail_open, "node " + n.name + " of cluster '" + here.name + "' has GPUs of unknown type '" +
                                                      n.gpu_type + "' (name it: Gres=gpu:TYPE:N in slurm.conf, or gpu_type in the "
                                                      "topology; `spiderflow catalog gpus` lists them)");
            }
        }
        std::optional<int> federation_free;
        if (site->observed && topology->clusters.size() > 1) {
            const SiteTime now = static_cast<SiteTime>(std::time(nullptr));
            federation_free = 0;
            for (size_t c = 0; c < topology->clusters.size(); ++c) *federation_free += site->state->free_gpus(static_cast<int>(c), now);
        }
        Plan plan;
        PlannedFrom asked;
        const std::optional<Stop> stop = !opts.plan_file.empty() ? plan_from_content(opts, *topology, &plan)
                                                                 : plan_from_spec(opts, req, here, topology->clusters[static_cast<size_t>(cluster)],
                                                                                  site->usable, federation_free,
                                                                                  [&] { return clusters_out(*site, cluster); },
                                                                                  cfg, &plan, &asked);
        if (stop) {
            d.reject_kind = stop->kind;
            return finish(stop->outcome, stop->message);
        }
        // A given plan is used as is; a planned one may differ from --gpus where the user allowed it.
        const GpuCountMode mode = opts.plan_file.empty() ? opts.gpu_mode.value_or(GpuCountMode::exact) : GpuCountMode::exact;
        if (const auto bad = shape_request(plan, *topology, cluster, here, req, mode, &d.rewrite)) {
            d.reject_kind = bad->kind;
            return finish(bad->outcome, bad->message);
        }
        SubmitRewrite& r = d.rewrite;
        if (r.hold && !(site->observed && cfg.cross_site)) {
            d.reject_kind = RejectKind::no_fit;
            return finish(Outcome::reject, "spiderflow: the plan spans clusters, and this cluster " +
                                               std::string(cfg.cross_site ? "has no federation agent's site state (site_state in spiderflow.conf)"
                                                                          : "does not run cross-site jobs (cross_site = no in spiderflow.conf)") +
                                               "; plan for this cluster alone");
        }
        // A cross-site plan for exactly the GPUs asked for: does one site, or fewer GPUs, do better?
        std::string verdict;
        if (r.hold && asked.planner && mode == GpuCountMode::exact) {
            const double left_s = cfg.time_budget_s - std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            const auto comparisons = left_s > 0 ? compare_with_budget(asked.request, asked.planner, site->usable, plan, left_s)
                                                : std::nullopt;
            if (const PlanComparison* faster = comparisons ? faster_alternative(*comparisons) : nullptr) {
                verdict = "spiderflow: " + does_not_pay(*faster, plan, sbatch_ask(*faster, here.name));
                if (cfg.refuse_cross_site_loss) {
                    d.reject_kind = RejectKind::no_fit;
                    return finish(Outcome::reject, verdict + " This cluster runs only cross-site jobs that pay "
                                                             "(cross_site_loss = refuse in spiderflow.conf).");
                }
            }
        }
        r.slurm_env_unset = {"SLURM_GPUS"};
        r.slurm_env = {{"SLURM_GPUS_PER_NODE", std::to_string(r.gpus_per_node)}};
        r.job_env = plan_step_env(plan, *topology);
        // salloc and srun jobs never see job_submit's environment: their steps and `spiderflow
        // launch` read the plan back from the AdminComment.
        std::string carried;
        for (const auto& [k, v] : r.job_env) {
            if (k == env::kPlanData) carried = v;
        }
        PlanSummary summary = plan_summary_of(plan, r.nodes, r.gpus_per_node, carried);
        if (r.hold) {
            const CommFacts facts = comm_facts(plan, *topology);
            summary.parts = r.parts;
            for (const auto& c : facts.clusters) summary.clusters += (summary.clusters.empty() ? "" : ",") + c;
            summary.wan_rtt_ms = fmt(facts.max_rtt_s * 1e3, 6);
            summary.wan_gbps = fmt(facts.min_wan_Bps * 8 / 1e9, 6);
            const bool requeue = opts.on_failure.empty() ? cfg.requeue_on_failure : opts.on_failure == "requeue";
            summary.failure_requeues = requeue ? cfg.failure_requeues : 0;
            summary.replan_any = opts.replan == "any";
            r.job_env.push_back({env::kXJobHome, "1"});
            r.summary = format_plan_summary(summary);
            std::string where, outputs;
            int first = 0;
            // The job's id is Slurm's to give after this plugin returns, and the co-allocation
            // attempt that starts the parts is the broker's: the file names say where they go
            // in, and `spiderflow jobs` names each file once its part is submitted.
            for (size_t k = 0; k < r.parts.size(); ++k) {
                if (r.parts[k].cluster == here.name) continue;
                outputs += (outputs.empty() ? "" : ", ") + r.parts[k].cluster + " part " + std::to_string(k);
            }
            for (const auto& p : r.parts) {
                where += (where.empty() ? "" : "; ") + p.cluster + " " + std::to_string(p.nodes) + " node(s) x " +
                         std::to_string(p.gpus_per_node) + " GPUs, ranks " + std::to_string(first) + "-" +
                         std::to_string(first + p.ranks - 1) + (p.cluster == here.name ? " (this job)" : "");
                first += p.ranks;
            }
            r.user_note = "spiderflow: planned " + plan.job.model.name + " as tp=" + std::to_string(plan.tp) + " pp=" +
                          std::to_string(plan.pp) + " dp=" + std::to_string(plan.dp) + " across " +
                          std::to_string(r.parts.size()) + " clusters: " + where + "; " + fmt(plan.prediction.iteration_s) +
                          " s per iteration predicted" + diloco_words(plan) + ". The job is held until every part can start together; "
                          "`spiderflow jobs` follows it." +
                          (summary.failure_requeues > 0
                               ? " Should a part fail (not by your scancel), it is planned again without what failed and "
                                 "restarted, at most " + std::to_string(summary.failure_requeues) + " times, with "
                                 "SPIDERFLOW_ATTEMPT=2, ...: load your checkpoint then."
                               : "") + " The other parts' output goes to your home directory on their "
                          "clusters (" + outputs + "), as ~/spiderflow-" + here.name + "_<job id>-a<attempt>-p<part>.out "
                          "(<job id>: the one sbatch prints next); `spiderflow jobs " + here.name +
                          ":<job id>` names each file once its part is submitted." + chosen_count_words(req, plan) +
                          (verdict.empty() ? "" : "\n" + verdict);
            return finish(Outcome::rewrite, "");
        }
        r.summary = format_plan_summary(summary);
        r.user_note = "spiderflow: planned " + plan.job.model.name + " as tp=" + std::to_string(plan.tp) + " pp=" +
                      std::to_string(plan.pp) + " dp=" + std::to_string(plan.dp) + " on " + std::to_string(r.nodes) +
                      " node(s) x " + std::to_string(r.gpus_per_node) + " GPUs of cluster '" + here.name + "', " +
                      fmt(plan.prediction.iteration_s) + " s per iteration predicted" + diloco_words(plan) +
                      chosen_count_words(req, plan);
        return finish(Outcome::rewrite, "");
    } catch (const std::exception& e) {
        return finish(Outcome::fail_open, std::string("internal error: ") + e.what());
    } catch (...) {
        return finish(Outcome::fail_open, "internal error");
    }
}

std::string unplanned_note(const std::string& why) {
    return "spiderflow: this job runs UNPLANNED, as plain Slurm would run it (" + why +
           "; the site's SpiderFlow setup is at fault, not your job)";
}

}  // namespace spiderflow::slurmjob
