#include "plugins/common/submit_planner.h"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "common/cost/cost_model.h"
#include "common/model/catalog.h"
#include "common/model/job_spec.h"
#include "common/plan/nccl_env.h"
#include "common/plan/plan_json.h"
#include "common/planner/planner.h"
#include "common/util/errors.h"
#include "plugins/common/plan_summary.h"

namespace spiderflow::plugin {

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

std::atomic<int> g_running{0};

std::string read_small_file(const std::string& path) {
    std::ifstream f(path);
    if (!f) throw InputError(path, 0, "--llm-plan", "cannot read the plan file (it must be readable by slurmctld)");
    std::ostringstream s;
    s << f.rdbuf();
    if (s.str().size() > (8u << 20)) throw InputError(path, 0, "--llm-plan", "plan file larger than 8 MiB");
    return s.str();
}

// Writes atomically so a step never reads half a plan. Returns false on any error.
bool write_plan_file(const std::string& dir, const std::string& name, const std::string& text) {
    ::mkdir(dir.c_str(), 0755);
    const std::string path = dir + "/" + name;
    const std::string tmp = path + ".tmp" + std::to_string(::getpid());
    {
        std::ofstream f(tmp, std::ios::trunc);
        if (!f) return false;
        f << text;
        if (!f.flush()) return false;
    }
    return std::rename(tmp.c_str(), path.c_str()) == 0;
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

// The planner runs on its own thread so a slow search can be abandoned at the budget: the
// thread keeps its own copies (shared topology, request) and finishes in the background.
PlanOutcome plan_with_budget(const PlanRequest& request, const std::string& policy,
                             const std::shared_ptr<const Topology>& topology, double budget_s) {
    auto promise = std::make_shared<std::promise<PlanOutcome>>();
    auto future = promise->get_future();
    ++g_running;
    std::thread([promise, request, policy, topology] {
        PlanOutcome out;
        try {
            auto planner = make_planner(policy);
            CostModel cost(*topology, Catalog::builtin());
            out.plan = planner->plan(request, cost).plan;
            out.ok = true;
        } catch (const InfeasibleError& e) {
            out.user_error = true;
            out.message = e.what();
        } catch (const InputError& e) {
            out.user_error = true;
            out.message = e.what();
        } catch (const std::exception& e) {
            out.message = std::string("planner failed: ") + e.what();
        } catch (...) {
            out.message = "planner failed";
        }
        promise->set_value(std::move(out));
        --g_running;
    }).detach();
    if (future.wait_for(std::chrono::duration<double>(budget_s)) != std::future_status::ready) {
        PlanOutcome late;
        late.message = "planning exceeded the time budget of " + fmt(budget_s) + " s";
        return late;
    }
    return future.get();
}

std::string known_models() {
    std::string out;
    for (const auto& n : Catalog::builtin().model_names()) out += (out.empty() ? "" : ", ") + n;
    return out;
}

}  // namespace

int planner_threads_running() { return g_running.load(); }

namespace {

SubmitDecision decide_uncached(const JobOptions& opts, std::optional<int> requested_gpus,
                               const std::shared_ptr<const Topology>& topology, const SiteConfig& cfg) {
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
        if (!topology) return finish(Outcome::fail_open, "no usable topology");
        int cluster = 0;
        if (!cfg.cluster.empty()) {
            cluster = -1;
            for (size_t i = 0; i < topology->clusters.size(); ++i) {
                if (topology->clusters[i].name == cfg.cluster) cluster = static_cast<int>(i);
            }
            if (cluster < 0) return finish(Outcome::fail_open, "cluster '" + cfg.cluster + "' is not in the topology");
        }
        if (topology->clusters.empty()) return finish(Outcome::fail_open, "topology has no clusters");
        const Cluster& here = topology->clusters[static_cast<size_t>(cluster)];
        int here_gpus = 0;
        for (const auto& n : here.nodes) here_gpus += n.gpus;

        Plan plan;
        if (!opts.plan_file.empty()) {
            try {
                plan = plan_from_json(read_small_file(opts.plan_file), opts.plan_file, topology.get());
            } catch (const InputError& e) {
                return finish(Outcome::reject, std::string("spiderflow: bad --llm-plan: ") + e.what());
            }
        } else {
            // The job spec, checked by the same parser as `spiderflow plan`.
            if (opts.model.empty()) return finish(Outcome::reject, "spiderflow: --llm-model is required (known: " + known_models() + ")");
            if (Catalog::builtin().model(opts.model) == nullptr) {
                return finish(Outcome::reject,
                              "spiderflow: unknown model '" + opts.model + "' for --llm-model (known: " + known_models() + ")");
            }
            if (!opts.global_batch) return finish(Outcome::reject, "spiderflow: --llm-global-batch is required");
            const std::optional<int> gpus = requested_gpus ? requested_gpus : opts.gpus;
            if (!gpus) {
                return finish(Outcome::reject, "spiderflow: say how many GPUs with --gpus=N (this cluster has " +
                                                   std::to_string(here_gpus) + ")");
            }
            if (*gpus > here_gpus) {
                return finish(Outcome::reject, "spiderflow: " + std::to_string(*gpus) + " GPUs requested but cluster '" +
                                                   here.name + "' has " + std::to_string(here_gpus) + " (" +
                                                   std::to_string(here.nodes.size()) + " nodes); ask for at most " +
                                                   std::to_string(here_gpus));
            }
            nlohmann::json spec = {{"model", opts.model}, {"global_batch", *opts.global_batch}, {"gpus", *gpus}};
            if (opts.seq_len) spec["seq_len"] = *opts.seq_len;
            if (opts.micro_batch) spec["micro_batch"] = *opts.micro_batch;
            PlanRequest req;
            try {
                req.job = parse_job_spec(spec.dump(), "job spec", Catalog::builtin());
                req.job.validate();
            } catch (const InputError& e) {
                return finish(Outcome::reject, "spiderflow: bad job spec: " + e.problem() +
                                                   (e.field().empty() ? "" : " (" + e.field() + ")"));
            }
            if (opts.objective == "throughput_per_gpu") req.objective = Objective::throughput_per_gpu;
            req.allowed_clusters = {here.name};
            req.micro_batch = opts.micro_batch;
            req.time_limit_s = cfg.time_budget_s * 0.8;
            const std::string policy = opts.policy.empty() ? cfg.policy : opts.policy;
            try {
                (void)make_planner(policy);
            } catch (const InputError& e) {
                return finish(Outcome::reject, std::string("spiderflow: bad --llm-policy: ") + e.problem());
            }
            PlanOutcome po = plan_with_budget(req, policy, topology, cfg.time_budget_s);
            if (!po.ok) {
                return finish(po.user_error ? Outcome::reject : Outcome::fail_open,
                              po.user_error ? "spiderflow: cannot plan this job: " + po.message : po.message);
            }
            plan = std::move(po.plan);
        }

        // Request rewrite: the nodes and GPUs the plan uses on this cluster.
        std::map<std::pair<int, int>, int> per_node;
        for (const auto& c : plan.cells) {
            if (c.cluster != cluster) {
                return finish(Outcome::reject, "spiderflow: the plan places work on cluster " + std::to_string(c.cluster) +
                                                   ", not on this cluster '" + here.name + "'");
            }
            per_node[{c.cluster, c.node}] += plan.tp;
        }
        if (per_node.empty()) return finish(Outcome::fail_open, "plan has no cells");
        SubmitRewrite& r = d.rewrite;
        r.nodes = static_cast<int>(per_node.size());
        for (const auto& [k, g] : per_node) r.gpus_per_node = std::max(r.gpus_per_node, g);
        r.num_tasks = plan.world_size();
        r.tasks_per_node = r.num_tasks == r.nodes * r.gpus_per_node ? r.gpus_per_node : 0;
        r.slurm_env_unset = {"SLURM_GPUS"};
        r.slurm_env = {{"SLURM_GPUS_PER_NODE", std::to_string(r.gpus_per_node)}};
        const auto first = per_node.begin()->first;
        r.gpu_type = here.nodes[static_cast<size_t>(first.second)].gpu_type;

        const CommFacts facts = comm_facts(plan, *topology);
        std::string layers;
        for (int n : plan.layers_per_stage) layers += (layers.empty() ? "" : ",") + std::to_string(n);
        std::string clusters;
        for (const auto& c : facts.clusters) clusters += (clusters.empty() ? "" : ",") + c;
        const std::string json = plan_to_json(plan, *topology);
        const std::string name = content_hash(json) + ".json";
        if (write_plan_file(cfg.state_dir, name, json)) r.plan_path = cfg.state_dir + "/" + name;
        if (!r.plan_path.empty()) r.job_env.push_back({"SPIDERFLOW_PLAN", r.plan_path});
        r.job_env.push_back({"SPIDERFLOW_TP", std::to_string(plan.tp)});
        r.job_env.push_back({"SPIDERFLOW_PP", std::to_string(plan.pp)});
        r.job_env.push_back({"SPIDERFLOW_DP", std::to_string(plan.dp)});
        r.job_env.push_back({"SPIDERFLOW_MICRO_BATCH", std::to_string(plan.micro_batch)});
        r.job_env.push_back({"SPIDERFLOW_GLOBAL_BATCH", std::to_string(plan.job.global_batch)});
        r.job_env.push_back({"SPIDERFLOW_LAYER_SPLIT", layers});
        r.job_env.push_back({"SPIDERFLOW_CLUSTERS", clusters});
        r.job_env.push_back({"SPIDERFLOW_WAN_RTT_MS", fmt(facts.max_rtt_s * 1e3, 6)});
        r.job_env.push_back({"SPIDERFLOW_WAN_GBPS", fmt(facts.min_wan_Bps * 8 / 1e9, 6)});
        PlanSummary summary;
        summary.model = plan.job.model.name;
        summary.tp = plan.tp;
        summary.pp = plan.pp;
        summary.dp = plan.dp;
        summary.micro_batch = plan.micro_batch;
        summary.nodes = r.nodes;
        summary.gpus_per_node = r.gpus_per_node;
        summary.iteration_s = plan.prediction.iteration_s;
        summary.plan_path = r.plan_path;
        r.summary = format_plan_summary(summary);
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
// hold the topology weakly: a reloaded topology file is a new object and misses.
struct CachedDecision {
    std::weak_ptr<const Topology> topology;
    SubmitDecision decision;
};

std::mutex g_cache_mu;
std::map<std::string, CachedDecision> g_cache;
constexpr size_t kCacheEntries = 256;

std::string cache_key(const JobOptions& o, std::optional<int> gpus, const SiteConfig& cfg) {
    auto n = [](const std::optional<int>& v) { return v ? std::to_string(*v) : std::string("-"); };
    return o.model + '|' + n(o.global_batch) + '|' + n(o.micro_batch) + '|' + n(o.seq_len) + '|' + n(o.gpus) + '|' +
           n(gpus) + '|' + o.objective + '|' + (o.policy.empty() ? cfg.policy : o.policy) + '|' + cfg.cluster + '|' +
           cfg.state_dir + '|' + fmt(cfg.time_budget_s, 6);
}

bool file_exists(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0;
}

}  // namespace

SubmitDecision decide_submission(const JobOptions& opts, std::optional<int> requested_gpus,
                                 const std::shared_ptr<const Topology>& topology, const SiteConfig& cfg) {
    // A given plan file may change between submits: only planned specs are cached.
    if (!opts.any() || !cfg.enabled || !topology || !opts.plan_file.empty()) {
        return decide_uncached(opts, requested_gpus, topology, cfg);
    }
    const auto t0 = std::chrono::steady_clock::now();
    const std::string key = cache_key(opts, requested_gpus, cfg);
    {
        std::lock_guard<std::mutex> lock(g_cache_mu);
        auto it = g_cache.find(key);
        if (it != g_cache.end() && it->second.topology.lock() == topology &&
            (it->second.decision.rewrite.plan_path.empty() || file_exists(it->second.decision.rewrite.plan_path))) {
            SubmitDecision d = it->second.decision;
            d.from_cache = true;
            d.planning_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            return d;
        }
    }
    SubmitDecision d = decide_uncached(opts, requested_gpus, topology, cfg);
    // Rejections are cached too (same spec, same answer); fail-open outcomes (a timeout, an
    // internal error) are not, so the next submit tries again.
    if (d.outcome == Outcome::rewrite || d.outcome == Outcome::reject) {
        std::lock_guard<std::mutex> lock(g_cache_mu);
        if (g_cache.size() >= kCacheEntries) g_cache.clear();
        g_cache[key] = {topology, d};
    }
    return d;
}

}  // namespace spiderflow::plugin
