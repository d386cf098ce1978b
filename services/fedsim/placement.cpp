#include "services/fedsim/placement.h"

#include <chrono>
#include <string>
#include <unordered_map>

#include "common/cost/cost_model.h"
#include "common/planner/plan_job.h"
#include "common/planner/planner.h"
#include "common/util/errors.h"

namespace spiderflow::fedsim {
namespace {

PlanRequest request_for(const TraceJob& job, const Catalog& catalog, double time_limit_s, uint64_t seed) {
    PlanRequest r;
    const ModelArch* model = catalog.model(job.model);
    if (!model) throw InputError("job trace", job.line, "model", "unknown model '" + job.model + "'");
    r.job.model = *model;
    r.job.seq_len = job.seq_len;
    r.job.global_batch = job.global_batch;
    r.job.gpus = job.gpus_max;
    r.job.gpu_mode = job.gpus_min == job.gpus_max ? GpuCountMode::exact : GpuCountMode::at_most;
    r.time_limit_s = time_limit_s;
    r.seed = seed;
    return r;
}

// One planner call on `view`, restricted to `allowed` (empty: everywhere); times itself.
PlaceAttempt plan_on(const PlannerPolicy& planner, const Topology& view, const TraceJob& job, const Catalog& catalog,
                     const std::vector<std::string>& allowed, double time_limit_s, uint64_t seed) {
    PlaceAttempt a;
    PlanRequest req = request_for(job, catalog, time_limit_s, seed);
    req.allowed_clusters = allowed;
    CostOptions co;
    co.scaling_efficiency = false;
    const CostModel cost(view, catalog, co);
    const auto t0 = std::chrono::steady_clock::now();
    try {
        PlanResult r = plan_job(planner, req, cost);
        a.hit_limit = r.hit_limit;
        if (r.plan.world_size() < job.gpus_min)
            a.why = "only " + std::to_string(r.plan.world_size()) + " GPUs usable, the job asks at least " +
                    std::to_string(job.gpus_min);
        else
            a.plan = std::move(r.plan);
    } catch (const InfeasibleError& e) {
        a.why = e.what();
    } catch (const InputError& e) {
        a.why = e.what();
    }
    a.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    a.planner_calls = 1;
    return a;
}

class PlannerPlacement final : public PlacementPolicy {
public:
    PlannerPlacement(std::unique_ptr<PlannerPolicy> p, double limit, uint64_t seed)
        : planner_(std::move(p)), limit_(limit), seed_(seed) {}
    std::string name() const override { return planner_->name(); }
    // The same request on the same free GPUs gets the same answer, planned once: a loaded
    // federation asks it again and again (every admission on the empty federation, identical jobs
    // behind a blocked head). A hit costs its lookup, as a controller's cache would.
    PlaceAttempt place(const Topology& view, const TraceJob& job, const Catalog& catalog) const override {
        const auto t0 = std::chrono::steady_clock::now();
        std::string key = job.model + ' ' + std::to_string(job.global_batch) + ' ' + std::to_string(job.seq_len) +
                          ' ' + std::to_string(job.gpus_min) + ' ' + std::to_string(job.gpus_max) + '|';
        for (const Cluster& c : view.clusters)
            for (const Node& n : c.nodes) key += std::to_string(n.gpus) + ',';
        if (auto it = cache_.find(key); it != cache_.end()) {
            PlaceAttempt hit = it->second;
            hit.planner_calls = 0;
            hit.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            return hit;
        }
        PlaceAttempt a = plan_on(*planner_, view, job, catalog, {}, limit_, seed_);
        if (cache_.size() >= kCacheSize) cache_.clear();
        cache_.emplace(std::move(key), a);
        return a;
    }

private:
    static constexpr size_t kCacheSize = 4096;   // plans kept; a full cache starts over
    std::unique_ptr<PlannerPolicy> planner_;
    double limit_;
    uint64_t seed_;
    mutable std::unordered_map<std::string, PlaceAttempt> cache_;
};

// Slurm's own choice: first-fit on one cluster at a time, never waiting for a better one.
class SlurmRule : public PlacementPolicy {
public:
    SlurmRule(double limit, uint64_t seed) : first_fit_(make_planner("first-fit")), limit_(limit), seed_(seed) {}
    bool waits_for_better() const override { return false; }

protected:
    PlaceAttempt on_cluster(const Topology& view, const TraceJob& job, const Catalog& catalog,
                            const std::string& cluster) const {
        return plan_on(*first_fit_, view, job, catalog, {cluster}, limit_, seed_);
    }

private:
    std::unique_ptr<PlannerPolicy> first_fit_;
    double limit_;
    uint64_t seed_;
};

class SlurmAlone final : public SlurmRule {
public:
    using SlurmRule::SlurmRule;
    std::string name() const override { return "slurm-alone"; }
    std::string queue_of(const TraceJob& job) const override { return job.home; }
    PlaceAttempt place(const Topology& view, const TraceJob& job, const Catalog& catalog) const override {
        return on_cluster(view, job, catalog, job.home);
    }
};

class SlurmFederation final : public SlurmRule {
public:
    using SlurmRule::SlurmRule;
    std::string name() const override { return "slurm-federation"; }
    PlaceAttempt place(const Topology& view, const TraceJob& job, const Catalog& catalog) const override {
        // Home first (where it was submitted), then the siblings in the federation's order.
        std::vector<std::string> order{job.home};
        for (const auto& c : view.clusters)
            if (c.name != job.home) order.push_back(c.name);
        PlaceAttempt total;
        for (const auto& c : order) {
            const int i = view.cluster_index(c);
            if (i < 0 || view.clusters[static_cast<size_t>(i)].total_gpus() < job.gpus_min) continue;   // what Slurm's will-run answers without planning
            PlaceAttempt a = on_cluster(view, job, catalog, c);
            total.wall_s += a.wall_s;
            total.planner_calls += a.planner_calls;
            total.hit_limit = total.hit_limit || a.hit_limit;
            if (a.plan) {
                total.plan = std::move(a.plan);
                return total;
            }
            total.why = a.why;
        }
        if (total.why.empty())
            total.why = "no single cluster has " + std::to_string(job.gpus_min) + " GPUs free";
        return total;
    }
};

// The evaluation's oracle: at every decision every planner policy (our searches and the
// published baselines, whose plans are priced again with our cost model) plans the job on the
// same free GPUs and the plan with the lowest iteration time under our cost model wins. Its
// decisions cost no simulated time (wall_s 0): it is the yardstick a policy is held against, not
// a policy a controller could run.
class OraclePlacement final : public PlacementPolicy {
public:
    OraclePlacement(double limit, uint64_t seed) {
        for (const char* n : {"spinsearch", "global-ilp", "genetic", "greedy", "first-fit", "genetic-dtfm",
                              "ilp-oblivious", "greedy-atlas"})
            planners_.push_back(std::make_unique<PlannerPlacement>(make_planner(n), limit, seed));
    }
    std::string name() const override { return "oracle"; }
    PlaceAttempt place(const Topology& view, const TraceJob& job, const Catalog& catalog) const override {
        PlaceAttempt best;
        for (const auto& s : planners_) {
            PlaceAttempt a = s->place(view, job, catalog);
            best.planner_calls += a.planner_calls;
            best.hit_limit = best.hit_limit || a.hit_limit;
            if (a.plan && (!best.plan || a.plan->prediction.iteration_s < best.plan->prediction.iteration_s)) {
                best.plan = std::move(a.plan);
                best.found_by = s->name();
            } else if (!best.plan && best.why.empty()) {
                best.why = a.why;
            }
        }
        if (best.plan) best.why.clear();
        best.wall_s = 0;
        return best;
    }

private:
    std::vector<std::unique_ptr<PlannerPlacement>> planners_;
};

}  // namespace

std::string PlacementPolicy::queue_of(const TraceJob&) const { return ""; }

std::vector<std::string> placement_names() {
    std::vector<std::string> names{"slurm-alone", "slurm-federation"};
    for (const auto& n : planner_names()) names.push_back(n);
    names.push_back("oracle");
    return names;
}

std::unique_ptr<PlacementPolicy> make_placement(const std::string& name, double limit, uint64_t seed) {
    if (name == "slurm-alone") return std::make_unique<SlurmAlone>(limit, seed);
    if (name == "slurm-federation") return std::make_unique<SlurmFederation>(limit, seed);
    if (name == "oracle") return std::make_unique<OraclePlacement>(limit, seed);
    try {
        return std::make_unique<PlannerPlacement>(make_planner(name), limit, seed);
    } catch (const InputError&) {
        std::string all;
        for (const auto& n : placement_names()) all += (all.empty() ? "" : ", ") + n;
        throw InputError("command line", 0, "--policy", "unknown policy '" + name + "' (known: " + all + ")");
    }
}

}  // namespace spiderflow::fedsim
