#include "services/slurmjob/submit_planner.h"

#include "common/plan/launch_contract.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <functional>
#include <cstdio>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "common/cost/cost_model.h"
#include "common/model/catalog.h"
#include "common/model/job_spec.h"
#include "common/plan/nccl_env.h"
#include "common/plan/plan_json.h"
#include "common/plan/plan_parts.h"
#include "common/plan/plan_transport.h"
#include "common/planner/deadline_planning.h"
#include "common/planner/plan_compare.h"
#include "common/planner/plan_job.h"
#include "common/planner/planner.h"
#include "common/planner/request_builder.h"
#include "common/site/site_state.h"
#include "common/util/errors.h"
#include "services/slurmjob/plan_step_env.h"
#include "services/slurmjob/plan_summary.h"

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

// Owned planner threads: one past its budget finishes on its own and is joined later.
DeadlinePlanner& planner_threads() {
    static DeadlinePlanner threads;
    return threads;
}

std::string fmt(double v, int digits = 3) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    return buf;
}

struct PlanOutcome {
    bool ok = false;
    bool user_error = false;
    std::string message;
    Plan plan;
};

// The thread keeps its own copies (shared topology and planner, request), so a slow search can be
// abandoned at the budget.
PlanOutcome plan_with_budget(const PlanRequest& request, const std::shared_ptr<const PlannerPolicy>& planner,
                             const std::shared_ptr<const Topology>& topology, double budget_s) {
    const DeadlineOutcome d = planner_threads().plan(
        [request, planner, topology] {
            CostModel cost(*topology, Catalog::builtin());
            return plan_job(*planner, request, cost);
        },
        budget_s);
    PlanOutcome out;
    out.ok = d.kind == DeadlineOutcome::Kind::planned;
    out.user_error = d.kind == DeadlineOutcome::Kind::infeasible || d.kind == DeadlineOutcome::Kind::bad_input;
    out.message = d.message;
    if (out.ok) out.plan = d.result.plan;
    return out;
}

// The plan's alternatives (plan_compare.h) within what is left of the budget; none when late.
std::optional<std::vector<PlanComparison>> compare_with_budget(const PlanRequest& request,
                                                               const std::shared_ptr<const PlannerPolicy>& planner,
                                                               const std::shared_ptr<const Topology>& topology,
                                                               const Plan& chosen, double budget_s) {
    auto found = std::make_shared<std::vector<PlanComparison>>();
    const DeadlineOutcome d = planner_threads().plan(
        [request, planner, topology, chosen, found] {
            CostModel cost(*topology, Catalog::builtin());
            *found = compare_plan(*planner, request, cost, chosen);
            return PlanResult{};
        },
        budget_s);
    if (d.kind != DeadlineOutcome::Kind::planned) return std::nullopt;
    return *found;
}

}  // namespace

int planner_threads_running() { return planner_threads().running(); }
void join_planner_threads() { planner_threads().join_all(); }

namespace {

// A step of the decision that may end it: outcome + message, or nothing to go on.
struct Stop {
    Outcome outcome;
    std::string message;
    RejectKind kind = RejectKind::spec;
};

std::string gpu_words(int n) { return std::to_string(n) + (n == 1 ? " GPU" : " GPUs"); }

// --llm-plan: the content the user's sbatch read (slurmctld never opens the path), validated
// here like any input from a user.
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
    if (!clash.empty()) return Stop{Outcome::reject, where + clash + "; re-plan with those options, or drop them"};
    return std::nullopt;
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

// "--llm-global-batch is required", "bad --llm-model: unknown model ...".
std::string option_message(const InputError& e) {
    if (e.problem().rfind("is required", 0) == 0) return "spiderflow: " + e.field() + " " + e.problem();
    return "spiderflow: bad " + (e.field().empty() ? std::string("job spec") : e.field()) + ": " + e.problem();
}

// Plans on `here` as the site state leaves it usable (`full` is the same cluster in the topology):
// drained and down nodes hold no GPUs there, since Slurm would never start the job on them; busy
// ones keep theirs, since the job queues behind them.
// `federation_free`: GPUs free now across the federation, when the agent's snapshot says.
// `asked`: the request and planner the plan came from, for the comparison with its alternatives.
struct PlannedFrom {
    PlanRequest request;
    std::shared_ptr<const PlannerPolicy> planner;
};
// `out_note`: the other clusters that offer no node now, and why (clusters_out), for a request
// that cannot be planned across the federation; asked only then (it walks every node).
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

// The user's --gpus and the plan's count agree, or the user let SpiderFlow choose
// (--llm-gpus-mode: at-most allows fewer, best any count).
bool count_allowed(const SlurmRequest& req, int world, GpuCountMode mode) {
    if (!req.gpus || *req.gpus == world || mode == GpuCountMode::best) return true;
    return mode == GpuCountMode::at_most && world < *req.gpus;
}

// "; beta offers no node now (SpiderFlow is off on beta: ...)": every other cluster whose GPU
// nodes are all drained or down in the agent's snapshot, with the first node's reason.
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

// Counts Slurm can be asked for: whole multiples of this cluster's node size around `gpus`.
std::string even_counts_near(int gpus, const Cluster& here) {
    int node_gpus = 0, total = 0;
    for (const auto& n : here.nodes) {
        node_gpus = std::max(node_gpus, n.gpus);
        total += n.gpus;
    }
    if (node_gpus <= 0) return "";
    const int below = gpus / node_gpus * node_gpus;
    const int above = (gpus + node_gpus - 1) / node_gpus * node_gpus;
    std::string out;
    if (below > 0) out = "--gpus=" + std::to_string(below);
    if (above != below && above <= total) out += (out.empty() ? "" : " or ") + std::string("--gpus=") + std::to_string(above);
    return out;
}

// One task per GPU (srun launches the ranks) or one per node (torchrun launches them): what the
// user's -n / --ntasks-per-node say, for a job of `nodes` nodes with `gpn` GPUs each.
std::optional<Stop> tasks_per_node(const SlurmRequest& req, int nodes, int gpn, int world, int* out) {
    int tpn = gpn;
    if (req.ntasks_per_node) tpn = *req.ntasks_per_node;
    else if (req.ntasks && *req.ntasks == nodes) tpn = 1;
    if (tpn != gpn && tpn != 1) {
        return Stop{Outcome::reject, "spiderflow: --ntasks-per-node=" + std::to_string(tpn) + " does not match the plan's " +
                                         std::to_string(gpn) + " GPUs per node; use " + std::to_string(gpn) +
                                         " (one task per GPU) or 1 (one launcher per node, e.g. torchrun)", RejectKind::tasks};
    }
    if (req.ntasks && *req.ntasks != tpn * nodes) {
        return Stop{Outcome::reject, "spiderflow: -n " + std::to_string(*req.ntasks) + " does not match the plan's " +
                                         std::to_string(nodes) + " node(s) x " + std::to_string(gpn) + " GPUs; use -n " +
                                         std::to_string(world) + " (one task per GPU) or -n " + std::to_string(nodes) +
                                         " (one launcher per node)", RejectKind::tasks};
    }
    *out = tpn;
    return std::nullopt;
}

// A plan over several clusters: this job becomes the home cluster's part (its nodes, held), and
// every part must be a request its own cluster can take (the same GPUs on each of its nodes).
// A part's ranks must be one contiguous range: the parts meet as RANK_BASE + local rank.
std::optional<Stop> shape_cross_site(const Plan& plan, const std::vector<PlanPart>& parts, int cluster, const Cluster& here,
                                     const SlurmRequest& req, GpuCountMode mode, SubmitRewrite* r) {
    const int world = plan.world_size();
    std::string where;
    for (const auto& p : parts) where += (where.empty() ? "" : ", ") + p.cluster_name + " (" + gpu_words(p.tasks) + ")";
    const PlanPart* home = nullptr;
    for (const auto& p : parts) {
        if (p.cluster == cluster) home = &p;
    }
    if (home == nullptr) {
        return Stop{Outcome::reject, "spiderflow: the plan places this job on " + where + " and nothing on this cluster '" +
                                         here.name + "'; submit it on one of those clusters", RejectKind::no_fit};
    }
    if (!count_allowed(req, world, mode)) {
        return Stop{Outcome::reject, "spiderflow: " + req.gpus_text + " but the plan uses " + gpu_words(world) +
                                         "; ask for --gpus=" + std::to_string(world), RejectKind::gpus};
    }
    if (req.nodes) {
        return Stop{Outcome::reject, "spiderflow: -N " + std::to_string(*req.nodes) + " cannot hold: the plan spans clusters (" +
                                         where + "); drop -N and ask for GPUs only", RejectKind::nodes};
    }
    for (const auto& p : parts) {
        const int gpn = p.gpus_per_node.front();
        if (!p.even()) {
            return Stop{Outcome::reject, "spiderflow: the plan (" + where + ") does not use the same GPUs on every node of '" +
                                             p.cluster_name + "', and Slurm gives every node of a job the same GPUs; ask for "
                                             "a multiple of the clusters' node size", RejectKind::gpus};
        }
        if (req.gpus_per_node && *req.gpus_per_node != gpn) {
            return Stop{Outcome::reject, "spiderflow: you asked for " + std::to_string(*req.gpus_per_node) +
                                             " GPUs per node but the plan uses " + std::to_string(gpn) + " on '" +
                                             p.cluster_name + "'", RejectKind::gpus};
        }
        if (p.rank_offset < 0) {
            return Stop{Outcome::reject, "spiderflow: the plan (" + where + ") spreads ranks of '" + p.cluster_name +
                                             "' between other clusters' ranks (data parallelism across sites), which a "
                                             "cross-site job cannot run yet; ask for a GPU count whose plan keeps each "
                                             "pipeline section on one cluster, or pass --llm-plan", RejectKind::no_fit};
        }
    }
    int total_nodes = 0;
    for (const auto& p : parts) total_nodes += static_cast<int>(p.nodes.size());
    const int gpn = home->gpus_per_node.front();
    int tpn = gpn;
    SlurmRequest home_req = req;  // -n counts the whole world's tasks; the home part holds its share
    home_req.ntasks.reset();
    if (req.ntasks) {
        if (*req.ntasks == total_nodes) home_req.ntasks_per_node = 1;
        else if (*req.ntasks != world) {
            return Stop{Outcome::reject, "spiderflow: -n " + std::to_string(*req.ntasks) + " does not match the plan's " +
                                             std::to_string(world) + " GPUs on " + std::to_string(total_nodes) +
                                             " nodes; use -n " + std::to_string(world) + " or -n " + std::to_string(total_nodes),
                        RejectKind::tasks};
        }
    }
    if (const auto bad = tasks_per_node(home_req, static_cast<int>(home->nodes.size()), gpn, world, &tpn)) return bad;
    r->nodes = static_cast<int>(home->nodes.size());
    r->gpus_per_node = gpn;
    r->tasks_per_node = tpn;
    r->num_tasks = tpn * r->nodes;
    r->slurm_gpu_type = req.gpu_type;
    r->gpu_type = here.nodes[static_cast<size_t>(home->nodes.front())].gpu_type;
    r->hold = true;
    for (const auto& p : parts) {
        r->parts.push_back({p.cluster_name, static_cast<int>(p.nodes.size()), p.gpus_per_node.front(), p.tasks});
    }
    return std::nullopt;
}

// The request Slurm gets: same GPUs and tasks on every node, so no distribution can put a rank
// on a device that is not there; the user's explicit choices either agree or are named.
std::optional<Stop> shape_request(const Plan& plan, const Topology& topology, int cluster, const Cluster& here,
                                  const SlurmRequest& req, GpuCountMode mode, SubmitRewrite* r) {
    const std::vector<PlanPart> parts = split_by_cluster(plan, topology);
    if (parts.empty()) return Stop{Outcome::fail_open, "plan has no cells"};
    if (parts.size() > 1) return shape_cross_site(plan, parts, cluster, here, req, mode, r);
    if (parts.front().cluster != cluster) {
        // The federation's best place for it is one other cluster, whole: no WAN in its way.
        return Stop{Outcome::reject, "spiderflow: this job runs best on cluster '" + parts.front().cluster_name + "' alone (" +
                                         gpu_words(parts.front().tasks) + "), not on this cluster '" + here.name +
                                         "'; submit it there", RejectKind::no_fit};
    }
    const PlanPart& part = parts.front();
    const int world = plan.world_size();
    if (!count_allowed(req, world, mode)) {
        return Stop{Outcome::reject, "spiderflow: " + req.gpus_text + " but the plan uses " + gpu_words(world) +
                                         "; ask for --gpus=" + std::to_string(world) + " or plan for " + gpu_words(*req.gpus),
                    RejectKind::gpus};
    }
    const int lo = *std::min_element(part.gpus_per_node.begin(), part.gpus_per_node.end());
    const int hi = *std::max_element(part.gpus_per_node.begin(), part.gpus_per_node.end());
    if (!part.even()) {
        const std::string near = even_counts_near(world, here);
        return Stop{Outcome::reject, "spiderflow: " + gpu_words(world) + " do not split evenly over this cluster's nodes (the plan "
                                         "puts " + std::to_string(hi) + " on some and " + std::to_string(lo) +
                                         " on others, and Slurm gives every node of a job the same GPUs)" +
                                         (near.empty() ? "" : "; ask for " + near),
                    RejectKind::gpus};
    }
    r->nodes = static_cast<int>(part.nodes.size());
    r->gpus_per_node = hi;
    if (req.nodes && *req.nodes != r->nodes) {
        return Stop{Outcome::reject, "spiderflow: you asked for " + std::to_string(*req.nodes) + " nodes (-N) but the plan for " +
                                         gpu_words(world) + " uses " + std::to_string(r->nodes) + " node(s) x " +
                                         std::to_string(hi) + " GPUs; drop -N or ask for --gpus=" +
                                         std::to_string(*req.nodes * hi), RejectKind::nodes};
    }
    if (req.gpus_per_node && *req.gpus_per_node != hi) {
        return Stop{Outcome::reject, "spiderflow: you asked for " + std::to_string(*req.gpus_per_node) +
                                         " GPUs per node but the plan uses " + std::to_string(hi) + " on each of " +
                                         std::to_string(r->nodes) + " node(s)", RejectKind::gpus};
    }
    // Tasks: one per GPU (srun launches ranks), or one per node (torchrun launches them).
    int tpn = hi;
    if (const auto bad = tasks_per_node(req, r->nodes, hi, world, &tpn)) return bad;
    r->tasks_per_node = tpn;
    r->num_tasks = tpn * r->nodes;
    r->slurm_gpu_type = req.gpu_type;
    r->gpu_type = here.nodes[static_cast<size_t>(part.nodes.front())].gpu_type;
    return std::nullopt;
}

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
            for (size_t k = 0; k < r.parts.size(); ++k) {
                if (r.parts[k].cluster == here.name) continue;
                outputs += (outputs.empty() ? "" : ", ") + r.parts[k].cluster + ": ~/spiderflow-" + here.name +
                           "_JOBID-a1-p" + std::to_string(k) + ".out";
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
                          "clusters (JOBID is this job's id): " + outputs + chosen_count_words(req, plan) +
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

// Users resubmit the same spec over and over (sweeps, requeues, arrays of one size); a plan
// found for a request stays valid for the same request on the same topology, so the decision
// is kept and a resubmit costs a lookup instead of a search under slurmctld's job write lock. Entries
// hold the site weakly: a reloaded topology or site state snapshot is a new object and misses.
struct CachedDecision {
    std::weak_ptr<const SubmitSite> site;
    SubmitDecision decision;
};

std::mutex g_cache_mu;
std::map<DecisionKey, CachedDecision> g_cache;
constexpr size_t kCacheEntries = 256;

}  // namespace

DecisionKey decision_key(const JobOptions& options, const SlurmRequest& request, const SpiderflowConf& config) {
    DecisionKey key{options, request, config};
    if (key.options.policy.empty()) key.options.policy = config.policy;
    return key;
}

std::string unplanned_note(const std::string& why) {
    return "spiderflow: this job runs UNPLANNED, as plain Slurm would run it (" + why +
           "; the site's SpiderFlow setup is at fault, not your job)";
}

SubmitDecision decide_submission(const JobOptions& opts, const SlurmRequest& req,
                                 const std::shared_ptr<const SubmitSite>& site, const SpiderflowConf& cfg) {
    // A given plan's content may differ between submits: only planned specs are cached.
    if (!opts.any() || !cfg.enabled || !site || !opts.plan_file.empty()) {
        return decide_uncached(opts, req, site, cfg);
    }
    const auto t0 = std::chrono::steady_clock::now();
    const DecisionKey key = decision_key(opts, req, cfg);
    {
        std::lock_guard<std::mutex> lock(g_cache_mu);
        auto it = g_cache.find(key);
        if (it != g_cache.end() && it->second.site.lock() == site) {
            SubmitDecision d = it->second.decision;
            d.from_cache = true;
            d.planning_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            return d;
        }
    }
    SubmitDecision d = decide_uncached(opts, req, site, cfg);
    // Rejections are cached too (same spec, same answer); fail-open outcomes (a timeout, an
    // internal error) are not, so the next submit tries again.
    if (d.outcome == Outcome::rewrite || d.outcome == Outcome::reject) {
        std::lock_guard<std::mutex> lock(g_cache_mu);
        if (g_cache.size() >= kCacheEntries) g_cache.clear();
        g_cache[key] = {site, d};
    }
    return d;
}

}  // namespace spiderflow::slurmjob
