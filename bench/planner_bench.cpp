// Planner benchmark: every policy on federations of 4 to 1024 clusters and models of 1.3B to
// 405B parameters. Prints CSV (instance,clusters,gpus,model,policy,plan_ms,iter_time_s,status)
// on stdout, then '#' lines comparing the measured ratios with issue 3's targets.
// Not a test: no assertion on timing; run it by hand on a quiet machine.
//   bench/planner_bench [--quick] [--srcdir DIR] [--only-policy P[,P...]] [--instances I[,I...]]
//                       [--models M[,M...]] [--slow-limit S] [--slow-workers N] [--no-fixed] [--notes]
//                       [--anytime]
// --anytime prints only genetic's anytime curve (best plan by trial budget, against SpinSearch);
// the full run prints it last.
// The filters run a part of the table (one instance, one policy) for measuring; the summary
// then only covers what ran. --slow-limit overrides the slow policies' time limit.
// Every policy but global-ilp runs alone, one row after another, so its plan time is measured
// on a quiet machine (spinsearch's level 2 uses every core). global-ilp's rows come last, N at
// a time (default: one per core): each is one single-threaded CBC run that stops at its time
// limit, so running them side by side does not change them and halves the default run on
// two cores. --slow-workers 1 runs them one after another too.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/util/cli_options.h"
#include "common/cost/cost_model.h"
#include "common/model/catalog.h"
#include "common/planner/baselines/genetic/genetic.h"
#include "common/planner/plan_job.h"
#include "common/planner/planner.h"
#include "common/topology/generator.h"
#include "common/topology/reader.h"
#include "common/util/errors.h"
#include "common/util/split_list.h"

using namespace spiderflow;

namespace {

struct Instance {
    std::string name;
    Topology topology;
};

struct Job {
    std::string model;
    int global_batch;
    int gpus;        // wanted; capped by what the instance has
    bool slow_ok;    // global-ilp / genetic / exhaustive run on it (13B and 70B)
};

// A request with fixed degrees: small enough for the exhaustive oracle.
struct Fixed {
    std::string instance;
    std::string model;
    int global_batch, tp, pp, dp;
};

struct Row {
    std::string instance;
    int clusters = 0;
    int gpus = 0;
    std::string model;
    std::string policy;
    double plan_ms = 0;
    double iter_s = 0;
    std::string status;
};

// An empty filter lets everything through.
bool selected(const std::vector<std::string>& filter, const std::string& name) {
    return filter.empty() || std::find(filter.begin(), filter.end(), name) != filter.end();
}

int floor_pow2(int n) {
    int p = 1;
    while (p * 2 <= n) p *= 2;
    return p;
}

bool g_notes = false;  // --notes: each policy's note on stderr
std::mutex g_output;   // rows and notes of concurrent global-ilp runs, one line at a time

Row run_one(const Instance& inst, const CostModel& cost, const std::string& model, const PlanRequest& req,
            const std::string& policy) {
    Row row;
    row.instance = inst.name;
    row.clusters = static_cast<int>(inst.topology.clusters.size());
    row.gpus = req.job.gpus;
    row.model = model;
    row.policy = policy;
    const auto t0 = std::chrono::steady_clock::now();
    try {
        const PlanResult r = plan_job(*make_planner(policy), req, cost);
        row.iter_s = r.plan.prediction.iteration_s;
        row.status = r.hit_limit ? "timeout" : "ok";
        const std::lock_guard<std::mutex> lock(g_output);
        if (g_notes) std::cerr << inst.name << " " << model << " " << policy << ": " << r.note << "\n";
    } catch (const InfeasibleError& e) {
        const std::string what = e.what();
        // A slow policy that found nothing before its limit timed out; it did not prove anything.
        row.status = what.find("refused") != std::string::npos      ? "refused"
                     : what.find("time limit") != std::string::npos ? "timeout"
                                                                    : "infeasible";
        const std::lock_guard<std::mutex> lock(g_output);
        std::cerr << "spiderflow: " << inst.name << " " << model << " " << policy << ": " << what << "\n";
    } catch (const std::exception& e) {
        row.status = "error";
        const std::lock_guard<std::mutex> lock(g_output);
        std::cerr << "spiderflow: " << inst.name << " " << model << " " << policy << ": " << e.what() << "\n";
    }
    row.plan_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const std::lock_guard<std::mutex> lock(g_output);
    std::printf("%s,%d,%d,%s,%s,%.1f,%.6g,%s\n", row.instance.c_str(), row.clusters, row.gpus, row.model.c_str(),
                row.policy.c_str(), row.plan_ms, row.iter_s, row.status.c_str());
    std::fflush(stdout);
    return row;
}

double median(std::vector<double> v) {
    if (v.empty()) return NAN;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

const Row* find(const std::vector<Row>& rows, const std::string& inst, const std::string& model,
                const std::string& policy) {
    for (const Row& r : rows)
        if (r.instance == inst && r.model == model && r.policy == policy) return &r;
    return nullptr;
}

// A global-ilp row left for the concurrent phase; instance and cost model outlive it.
struct Deferred {
    const Instance* instance;
    const CostModel* cost;
    std::string model;
    PlanRequest request;
};

// Runs the deferred rows on `workers` threads, each taking the next row when it is done.
std::vector<Row> run_deferred(const std::vector<Deferred>& work, int workers) {
    std::vector<Row> rows(work.size());
    std::atomic<size_t> next{0};
    auto worker = [&] {
        for (size_t i = next++; i < work.size(); i = next++)
            rows[i] = run_one(*work[i].instance, *work[i].cost, work[i].model, work[i].request, "global-ilp");
    };
    std::vector<std::thread> threads;
    for (int w = 1; w < std::min<int>(workers, static_cast<int>(work.size())); ++w) threads.emplace_back(worker);
    worker();
    for (std::thread& t : threads) t.join();
    return rows;
}

bool usable(const Row* r) { return r && (r->status == "ok" || r->status == "timeout") && r->iter_s > 0; }

void verdict(const char* what, double measured, const char* target, bool pass, const std::string& detail) {
    if (std::isnan(measured))
        std::printf("# %-58s n/a     (target %s)%s\n", what, target, detail.c_str());
    else
        std::printf("# %-58s %-8.3g target %-10s %s%s\n", what, measured, target, pass ? "MET" : "MISSED", detail.c_str());
}

PlanRequest job_request(const Instance& inst, const Job& job) {
    PlanRequest req;
    req.job.model = *Catalog::builtin().model(job.model);
    req.job.seq_len = 2048;
    req.job.global_batch = job.global_batch;
    // Enough GPUs that most jobs need several clusters, never more than 3/4 of the federation.
    req.job.gpus = std::min(job.gpus, floor_pow2(inst.topology.total_gpus() * 3 / 4));
    req.job.gpu_mode = GpuCountMode::exact;
    return req;
}

// Quality per time: genetic's best plan as its trial budget grows (its anytime curve), against
// SpinSearch's plan on the same request, and the time genetic needs to come within 1% of it.
// Budgets grow until genetic gets there or spends 100x SpinSearch's time.
void genetic_anytime(const Instance& inst, const CostModel& cost, const std::string& model, const PlanRequest& req) {
    const auto t0 = std::chrono::steady_clock::now();
    double spin_iter = 0;
    try {
        spin_iter = plan_job(*make_planner("spinsearch"), req, cost).plan.prediction.iteration_s;
    } catch (const std::exception& e) {
        std::printf("# anytime %s %s: spinsearch found no plan (%s)\n", inst.name.c_str(), model.c_str(), e.what());
        return;
    }
    const double spin_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::printf("# anytime %s %s: spinsearch %.4g s per iteration in %.1f ms\n", inst.name.c_str(), model.c_str(),
                spin_iter, spin_ms);
    std::printf("# anytime,instance,model,trials,plan_ms,iter_time_s,genetic/spinsearch,time/spinsearch\n");
    double reached_ms = -1, spent_ms = 0;
    int reached_trials = 0;
    for (int trials : {100, 300, 1000, 3000, 4900, 10000, 30000, 100000, 300000}) {
        GeneticOptions o;
        o.trials = trials;
        const auto g0 = std::chrono::steady_clock::now();
        double iter = NAN;
        try {
            PlanRequest r = req;
            r.time_limit_s = 0;
            iter = GeneticPolicy(o).plan(r, cost).plan.prediction.iteration_s;
        } catch (const std::exception&) {
        }
        spent_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - g0).count();
        std::printf("# anytime,%s,%s,%d,%.1f,%.6g,%.4f,%.1f\n", inst.name.c_str(), model.c_str(), trials, spent_ms, iter,
                    iter / spin_iter, spent_ms / spin_ms);
        std::fflush(stdout);
        if (!std::isnan(iter) && iter <= 1.01 * spin_iter) {
            reached_ms = spent_ms;
            reached_trials = trials;
            break;
        }
        if (spent_ms > 100 * spin_ms) break;
    }
    if (reached_ms >= 0)
        std::printf("# anytime %s %s: genetic comes within 1%% of spinsearch at %d trials, %.0f ms = %.1fx spinsearch's time\n",
                    inst.name.c_str(), model.c_str(), reached_trials, reached_ms, reached_ms / spin_ms);
    else
        std::printf("# anytime %s %s: genetic never comes within 1%% of spinsearch within %.0f ms (%.0fx its time)\n",
                    inst.name.c_str(), model.c_str(), spent_ms, spent_ms / spin_ms);
}

}  // namespace

int main(int argc, char** argv) {
    bool quick = false;
    std::vector<std::string> only_policies, only_instances, only_models;
    double slow_limit_override = -1;
    bool with_fixed = true;
    bool anytime_only = false;
    int slow_workers = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    std::string srcdir = std::getenv("SF_SRCDIR") ? std::getenv("SF_SRCDIR") : ".";
    std::string policies, instances_arg, models;
    cli::OptionTable options("planner_bench",
                             "usage: planner_bench [OPTIONS]\n\n"
                             "Every policy's plan and planning time on the example and generated federations.\n\n",
                             "", 24);
    options.flag("--quick", "fewer federations and jobs, slow policies capped at 20 s", cli::set(&quick));
    options.value("--srcdir", "DIR", "the source tree (default $SF_SRCDIR, else .)", cli::store(&srcdir));
    options.value("--only-policy", "P,...", "only these policies", cli::store(&policies));
    options.value("--instances", "I,...", "only these federations (aws-4, worldwide-8, generated-N)",
                  cli::store(&instances_arg));
    options.value("--models", "M,...", "only these models", cli::store(&models));
    options.value("--slow-limit", "S", "each slow policy's time limit (0: its own default)",
                  cli::number(&slow_limit_override, 0));
    options.value("--slow-workers", "N", "slow policies run side by side (default: the cores)",
                  cli::integer(&slow_workers, 1));
    options.flag("--no-fixed", "leave out the fixed-layout rows", cli::set(&with_fixed, false));
    options.flag("--notes", "print each plan's notes", cli::set(&g_notes));
    options.flag("--anytime", "only genetic's anytime curve against spinsearch", cli::set(&anytime_only));
    if (const auto status = cli::parse_main(options, argc, argv)) return *status;
    if (!policies.empty()) only_policies = split_list(policies);
    if (!instances_arg.empty()) only_instances = split_list(instances_arg);
    if (!models.empty()) only_models = split_list(models);

    std::vector<Instance> instances;
    try {
        instances.push_back({"aws-4", read_topology(srcdir + "/contrib/topologies/aws-4.json")});
        instances.push_back({"worldwide-8", read_topology(srcdir + "/contrib/topologies/worldwide-8.json")});
    } catch (const std::exception& e) {
        std::cerr << "spiderflow: " << e.what() << " (run from the source tree or pass --srcdir)\n";
        return 2;
    }
    const std::vector<int> generated = quick ? std::vector<int>{16, 64, 1024} : std::vector<int>{16, 32, 64, 128, 1024};
    for (int n : generated) {
        if (!selected(only_instances, "generated-" + std::to_string(n))) continue;
        GeneratorOptions g;
        g.clusters = n;
        g.seed = 1;
        instances.push_back({"generated-" + std::to_string(n), generate_topology(g)});
    }

    const std::vector<Job> jobs = quick ? std::vector<Job>{{"gpt3-13b", 512, 256, true}, {"llama3-70b", 512, 256, true}}
                                        : std::vector<Job>{{"gpt3-1.3b", 1024, 64, false},
                                                           {"gpt3-13b", 512, 256, true},
                                                           {"llama3-70b", 512, 256, true},
                                                           {"llama3-405b", 1024, 1024, false}};
    const std::vector<Fixed> fixed = {{"aws-4", "gpt3-13b", 512, 8, 4, 2},
                                      {"aws-4", "llama3-70b", 512, 8, 4, 2},
                                      {"worldwide-8", "gpt3-13b", 512, 8, 2, 2},
                                      {"worldwide-8", "llama3-70b", 256, 8, 4, 1}};
    const double slow_limit = slow_limit_override >= 0 ? slow_limit_override
                              : quick                  ? 20.0
                                                       : 0.0;  // 0 = the policy's default (600 s)

    // Genetic's anytime curve against SpinSearch, for the jobs the slow policies run, on the
    // worldwide example and 64 generated clusters.
    auto anytime_section = [&] {
        for (const Instance& inst : instances) {
            if (!selected(only_instances, inst.name) || (inst.name != "worldwide-8" && inst.name != "generated-64")) continue;
            const CostModel cost(inst.topology, Catalog::builtin());
            for (const Job& job : jobs)
                if (job.slow_ok && selected(only_models, job.model)) genetic_anytime(inst, cost, job.model, job_request(inst, job));
        }
    };
    if (anytime_only) {
        anytime_section();
        return 0;
    }

    std::printf("instance,clusters,gpus,model,policy,plan_ms,iter_time_s,status\n");
    std::vector<Row> rows;
    std::vector<Deferred> deferred;
    std::deque<CostModel> costs;           // the deferred rows' cost models (a deque never moves them)
    std::deque<Instance> fixed_instances;  // and their "-fixed" instances
    for (const Instance& inst : instances) {
        if (!selected(only_instances, inst.name)) continue;
        const CostModel& cost = costs.emplace_back(inst.topology, Catalog::builtin());
        const int n = static_cast<int>(inst.topology.clusters.size());
        for (const Job& job : jobs) {
            if (!selected(only_models, job.model)) continue;
            const PlanRequest req = job_request(inst, job);
            std::vector<std::string> policies = {"spinsearch", "greedy", "first-fit"};
            if (job.slow_ok && n <= 64) policies.insert(policies.end(), {"global-ilp", "genetic", "exhaustive"});
            for (const std::string& p : policies) {
                if (!selected(only_policies, p)) continue;
                PlanRequest r = req;
                if (p == "global-ilp" || p == "genetic" || p == "exhaustive") r.time_limit_s = slow_limit;
                if (p == "global-ilp") deferred.push_back({&inst, &cost, job.model, r});
                else rows.push_back(run_one(inst, cost, job.model, r, p));
            }
        }
        // Fixed-degree requests where the exhaustive oracle can finish.
        for (const Fixed& f : fixed) {
            if (!with_fixed || f.instance != inst.name || !selected(only_models, f.model)) continue;
            PlanRequest req;
            req.job.model = *Catalog::builtin().model(f.model);
            req.job.seq_len = 2048;
            req.job.global_batch = f.global_batch;
            req.job.gpus = f.tp * f.pp * f.dp;
            req.tp = f.tp;
            req.pp = f.pp;
            req.dp = f.dp;
            const Instance& fixed_inst = fixed_instances.emplace_back(Instance{inst.name + "-fixed", inst.topology});
            for (const char* name : {"spinsearch", "greedy", "first-fit", "global-ilp", "genetic", "exhaustive"}) {
                const std::string p = name;
                if (!selected(only_policies, p)) continue;
                PlanRequest r = req;
                if (p == "global-ilp" || p == "genetic") r.time_limit_s = slow_limit;
                if (p == "global-ilp") deferred.push_back({&fixed_inst, &cost, f.model, r});
                else rows.push_back(run_one(fixed_inst, cost, f.model, r, p));
            }
        }
    }

    if (!deferred.empty()) {
        std::cerr << "planner_bench: " << deferred.size() << " global-ilp runs, " << slow_workers
                  << " at a time (each up to its time limit)\n";
        for (Row& r : run_deferred(deferred, slow_workers)) rows.push_back(std::move(r));
    }

    // Summary against the targets.
    std::printf("#\n# summary (ratios from this run; see issue 3 for the targets)\n");
    std::vector<double> spin64;
    std::vector<double> speed_ilp, speed_gen;
    for (const Row& r : rows) {
        if (r.clusters != 64 || r.policy != "spinsearch" || r.instance.find("fixed") != std::string::npos) continue;
        spin64.push_back(r.plan_ms);
        for (const auto& [other, out] : {std::pair<const char*, std::vector<double>*>{"global-ilp", &speed_ilp},
                                         {"genetic", &speed_gen}}) {
            const Row* o = find(rows, r.instance, r.model, other);
            if (o && r.plan_ms > 0 && o->status != "error") out->push_back(o->plan_ms / r.plan_ms);
        }
    }
    const double m64 = median(spin64);
    verdict("spinsearch median plan time at 64 clusters (s)", m64 / 1e3, "<= 1 s", m64 <= 1000, "");
    const double si = speed_ilp.empty() ? NAN : *std::min_element(speed_ilp.begin(), speed_ilp.end());
    const double sg = speed_gen.empty() ? NAN : *std::min_element(speed_gen.begin(), speed_gen.end());
    verdict("plan-time speed-up vs global-ilp at 64 clusters (worst)", si, ">= 100x", si >= 100, "");
    verdict("plan-time speed-up vs genetic at 64 clusters (worst)", sg, ">= 100x", sg >= 100, "");

    // Iteration time: spinsearch / other wherever the other finished.
    for (const auto& [other, target, bound] : {std::tuple<const char*, const char*, double>{"exhaustive", "<= 1.03", 1.03},
                                               {"genetic", "<= 1.00", 1.0 + 1e-9},
                                               {"global-ilp", "<= 1.00", 1.0 + 1e-9}}) {
        double worst = NAN;
        int pairs = 0;
        for (const Row& r : rows) {
            if (r.policy != "spinsearch" || !usable(&r)) continue;
            const Row* o = find(rows, r.instance, r.model, other);
            if (!usable(o) || (std::string(other) == "exhaustive" && o->status != "ok")) continue;
            const double ratio = r.iter_s / o->iter_s;
            worst = std::isnan(worst) ? ratio : std::max(worst, ratio);
            ++pairs;
        }
        const std::string what = std::string("iteration time spinsearch / ") + other + " (worst)";
        verdict(what.c_str(), worst, target, worst <= bound, " over " + std::to_string(pairs) + " instances");
    }
    for (const char* other : {"first-fit", "greedy"}) {
        // Per model too: a job that fits one site leaves nothing to gain, so the worst alone hides
        // where the margin is.
        double worst = NAN;
        std::string per_model;
        for (const Row& r : rows) {
            if (r.instance != "worldwide-8" || r.policy != "spinsearch" || !usable(&r)) continue;
            const Row* o = find(rows, r.instance, r.model, other);
            if (!usable(o)) continue;
            const double ratio = o->iter_s / r.iter_s;
            worst = std::isnan(worst) ? ratio : std::min(worst, ratio);
            char part[96];
            std::snprintf(part, sizeof part, "%s %s %.3g", per_model.empty() ? " -- per model:" : ",", r.model.c_str(), ratio);
            per_model += part;
        }
        const std::string what = std::string("worldwide-8: ") + other + " / spinsearch iteration time (worst)";
        verdict(what.c_str(), worst, ">= 1.2x", worst >= 1.2, per_model);
    }
    double plan1024 = NAN;
    for (const Row& r : rows)
        if (r.clusters == 1024 && r.policy == "spinsearch")
            plan1024 = std::isnan(plan1024) ? r.plan_ms : std::max(plan1024, r.plan_ms);
    verdict("spinsearch plan time at 1024 clusters (s, worst)", plan1024 / 1e3, "<= 10 s", plan1024 <= 10000, "");
    anytime_section();
    return 0;
}
