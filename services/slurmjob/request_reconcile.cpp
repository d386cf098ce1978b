#include "services/slurmjob/request_reconcile.h"

#include <algorithm>

#include "common/model/catalog.h"
#include "common/plan/plan_json.h"
#include "common/plan/plan_transport.h"
#include "common/planner/request_builder.h"
#include "common/site/site_state.h"
#include "common/util/errors.h"
#include "services/slurmjob/planner_budget.h"

namespace spiderflow::slurmjob {
namespace {

// "--llm-global-batch is required", "bad --llm-model: unknown model ...".
std::string option_message(const InputError& e) {
    if (e.problem().rfind("is required", 0) == 0) return "spiderflow: " + e.field() + " " + e.problem();
    return "spiderflow: bad " + (e.field().empty() ? std::string("job spec") : e.field()) + ": " + e.problem();
}

// The job and memory options given beside --llm-plan that the plan says otherwise: named, since a
// plan is used as it is (it was priced with its own).
std::string job_clash(const JobOptions& opts, const Plan& plan) {
    const JobSpec& job = plan.job;
    const OptionNames& names = sbatch_option_names();
    const auto yes_no = [](bool b) { return std::string(b ? "yes" : "no"); };
    if (!opts.model.empty() && opts.model != job.model.name)
        return names.model + "=" + opts.model + " but the plan trains " + job.model.name;
    if (opts.global_batch && *opts.global_batch != job.global_batch)
        return names.global_batch + "=" + std::to_string(*opts.global_batch) + " but the plan's global batch is " +
               std::to_string(job.global_batch);
    if (opts.seq_len && *opts.seq_len != job.seq_len)
        return names.seq_len + "=" + std::to_string(*opts.seq_len) + " but the plan's sequence length is " +
               std::to_string(job.seq_len);
    if (opts.micro_batch && *opts.micro_batch != plan.micro_batch)
        return names.micro_batch + "=" + std::to_string(*opts.micro_batch) + " but the plan's micro-batch is " +
               std::to_string(plan.micro_batch);
    if (opts.recompute && *opts.recompute != job.recompute)
        return names.recompute + "=" + to_string(*opts.recompute) + " but the plan has " + to_string(job.recompute) +
               " activation recomputation";
    if (opts.sequence_parallel && *opts.sequence_parallel != job.sequence_parallel)
        return names.sequence_parallel + "=" + yes_no(*opts.sequence_parallel) + " but the plan " +
               (job.sequence_parallel ? "uses" : "does not use") + " sequence parallelism";
    if (opts.zero1 && *opts.zero1 != job.zero1)
        return names.zero1 + "=" + yes_no(*opts.zero1) + " but the plan " + (job.zero1 ? "shards" : "does not shard") +
               " the optimizer states";
    return "";
}

}  // namespace

std::optional<Stop> plan_from_content(const JobOptions& opts, const Topology& topo, Plan* plan) {
    const std::string where = "spiderflow: bad --llm-plan " + opts.plan_file + ": ";
    if (opts.plan_content.empty()) {
        return Stop{Outcome::reject,
                    where + "its content did not arrive; SpiderFlow reads the file on your side, so its SPANK plugin "
                            "must be loaded by sbatch/salloc/srun (plugstack.conf)"};
    }
    try {
        *plan = plan_from_json(decode_plan_text(opts.plan_content, opts.plan_file, "--llm-plan"), opts.plan_file, &topo);
    } catch (const InputError& e) {
        return Stop{Outcome::reject, where + e.problem() + (e.field().empty() ? "" : " (" + e.field() + ")")};
    }
    // The plan is used as is: a sync option that says otherwise is named, never overridden.
    const SyncSpec& sync = plan->job.sync;
    const OptionNames& names = sbatch_option_names();
    std::string clash;
    if (!opts.sync.empty() && opts.sync != to_string(sync.mode))
        clash = names.sync + "=" + opts.sync + " but the plan trains with " + to_string(sync.mode);
    else if (opts.inner_steps && (!sync.diloco() || *opts.inner_steps != sync.inner_steps))
        clash = names.inner_steps + "=" + std::to_string(*opts.inner_steps) + " but the plan " +
                (sync.diloco() ? "has " + std::to_string(sync.inner_steps) : std::string("is synchronous"));
    else if (!opts.outer_precision.empty() && (!sync.diloco() || opts.outer_precision != to_string(sync.outer_precision)))
        clash = names.outer_precision + "=" + opts.outer_precision + " but the plan " +
                (sync.diloco() ? "has " + std::string(to_string(sync.outer_precision)) : std::string("is synchronous"));
    else if (opts.streaming && (!sync.diloco() || *opts.streaming != sync.streaming))
        clash = names.streaming + "=" + (*opts.streaming ? "yes" : "no") + " but the plan " +
                (sync.diloco() ? (sync.streaming ? "streams" : "blocks") : "is synchronous");
    if (clash.empty()) clash = job_clash(opts, *plan);
    if (!clash.empty()) return Stop{Outcome::reject, where + clash + "; re-plan with those options, or drop them"};
    return std::nullopt;
}

std::optional<Stop> plan_from_spec(const JobOptions& opts, const SlurmRequest& req, const Cluster& here, const Cluster& full,
                                   const std::shared_ptr<const Topology>& usable, std::optional<int> federation_free,
                                   const std::function<std::string()>& out_note, const SpiderflowConf& cfg, Plan* plan,
                                   PlannedFrom* asked) {
    int here_gpus = 0, unusable_nodes = 0, gpu_nodes = 0;
    for (size_t i = 0; i < here.nodes.size(); ++i) {
        here_gpus += here.nodes[i].gpus;
        // A node without GPUs in the topology (a CPU-only node) is not "out".
        gpu_nodes += full.nodes[i].gpus > 0;
        unusable_nodes += full.nodes[i].gpus > 0 && here.nodes[i].gpus == 0;
    }
    const OptionNames& names = sbatch_option_names();
    if (req.gpu_count_missing) {
        return Stop{Outcome::reject, "spiderflow: " + req.gpus_text + " names no GPU count (Slurm reads it as one GPU of type '" +
                                         req.gpu_type + "'); write --gpus=N or --gpus=TYPE:N", RejectKind::gpu_count_missing};
    }
    if (req.gpus && opts.gpus && *req.gpus != *opts.gpus) {
        return Stop{Outcome::reject, "spiderflow: " + req.gpus_text + " and --llm-gpus=" + std::to_string(*opts.gpus) +
                                         " disagree; give one of them", RejectKind::gpus};
    }
    // The user's options are the request; the job's own --gpus wins over --llm-gpus (they agree
    // when both are given, above).
    RequestOptions ro = opts;
    if (req.gpus) ro.gpus = req.gpus;
    // Too large for this cluster: planned over the whole federation when this cluster runs
    // cross-site jobs, busy GPUs included (the parts wait for a common start, as any job waits
    // for its nodes); refused below otherwise, naming what would fit.
    const bool across = ro.gpus && *ro.gpus > here_gpus && federation_free && cfg.cross_site;
    ro.allowed_clusters = {here.name};
    if (across) {
        ro.allowed_clusters.clear();
        for (const auto& c : usable->clusters) ro.allowed_clusters.push_back(c.name);
    }
    ro.time_limit_s = cfg.time_budget_s * 0.8;
    PlanRequest preq;
    std::shared_ptr<const PlannerPolicy> planner;
    try {
        preq = build_plan_request(ro, Catalog::builtin(), names, "job options");
        planner = checked_planner(ro.policy, cfg.policy, names, "job options");
    } catch (const InputError& e) {
        if (!ro.gpus && e.field() == names.gpus) {
            return Stop{Outcome::reject, "spiderflow: say how many GPUs with --gpus=N (this cluster has " +
                                             std::to_string(here_gpus) + ")", RejectKind::gpu_count_missing};
        }
        return Stop{Outcome::reject, option_message(e)};
    }
    if (*ro.gpus > here_gpus && !across) {
        const std::string why = unusable_nodes == 0 ? ""
                                                    : " usable; " + std::to_string(unusable_nodes) + " of its " +
                                                          std::to_string(gpu_nodes) + " nodes are drained or down";
        const std::string federation =
            federation_free ? "; the federation has " + std::to_string(*federation_free) +
                                  " free, but this cluster does not plan across sites (cross_site = no in spiderflow.conf)"
                            : "";
        return Stop{Outcome::reject, "spiderflow: " + gpu_words(*ro.gpus) + " requested but cluster '" + here.name + "' has " +
                                         std::to_string(here_gpus) + " (" + std::to_string(gpu_nodes - unusable_nodes) +
                                         " nodes" + why + ")" + federation + "; ask for at most " + std::to_string(here_gpus),
                    RejectKind::no_fit};
    }
    // A job on several nodes needs their network: NICs, or the cluster's node-to-node figure
    // (intra_gbps) that the cost model uses where a node lists none. A topology with neither (a
    // slurm.conf names no NICs) is the site's gap, not the job's fault.
    int largest_node = 0;
    for (const auto& n : full.nodes) largest_node = std::max(largest_node, n.gpus);
    for (const auto& n : full.nodes) {
        if (*ro.gpus > largest_node && n.gpus > 0 && n.nics.empty() && full.intra_bandwidth_Bps <= 0) {
            return Stop{Outcome::fail_open, "node " + n.name + " of cluster '" + full.name + "' has no network interfaces in "
                                            "the topology and the cluster no intra_gbps, so a job on several nodes cannot be "
                                            "rated (describe its NICs, or the cluster's intra_gbps, in SpiderFlow's topology JSON)"};
        }
    }
    PlanOutcome po = plan_with_budget(preq, planner, usable, cfg.time_budget_s);
    if (!po.ok) {
        if (!po.user_error) return Stop{Outcome::fail_open, po.message};
        const std::string where =
            across ? " across the federation (" + std::to_string(*federation_free) + " GPUs free now)" : "";
        return Stop{Outcome::reject, "spiderflow: cannot plan this job" + where + ": " + po.message + (across ? out_note() : ""),
                    RejectKind::no_fit};
    }
    *plan = std::move(po.plan);
    asked->request = std::move(preq);
    asked->planner = std::move(planner);
    return std::nullopt;
}

std::string clusters_out(const SubmitSite& site, int here) {
    const Topology& t = site.state->topology();
    std::string out;
    for (size_t c = 0; c < t.clusters.size(); ++c) {
        if (static_cast<int>(c) == here) continue;
        const Cluster& full = t.clusters[c];
        const Cluster& usable = site.usable->clusters[c];
        int first_out = -1;
        bool any_usable = false;
        for (size_t n = 0; n < full.nodes.size() && !any_usable; ++n) {
            if (full.nodes[n].gpus == 0) continue;
            any_usable = usable.nodes[n].gpus > 0;
            if (first_out < 0) first_out = static_cast<int>(n);
        }
        if (first_out < 0 || any_usable) continue;
        const std::string reason =
            site.state->use(site.state->find({full.name, full.nodes[static_cast<size_t>(first_out)].name})).reason;
        out += (out.empty() ? "" : ", ") + full.name + (reason.empty() ? "" : " (" + reason + ")");
    }
    return out.empty() ? "" : "; offering no node now: " + out;
}

}  // namespace spiderflow::slurmjob
