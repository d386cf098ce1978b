// What every baseline shares so that they differ from SpinSearch only in how they search:
// the same eligible clusters, GPU counts and shapes (common/planner/shapes.h), the same TP
// slot inventories, one way to turn a cluster-level assignment of (stage, replica) cells into
// a finished plan, and the one CostModel to score it.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/planner/planner.h"
#include "common/planner/shapes.h"
#include "common/planner/tpa/inventory.h"

namespace spiderflow::baselines {

using Clock = std::chrono::steady_clock;

class Evaluator {
public:
    // default_limit_s applies when request.time_limit_s is 0. Validates the job.
    Evaluator(const PlanRequest& request, const CostModel& cost, std::string policy, double default_limit_s);

    const PlanRequest& request() const { return req_; }
    const CostModel& cost() const { return cost_; }
    const Topology& topology() const { return cost_.topology(); }
    const std::string& policy() const { return policy_; }
    const std::vector<int>& eligible() const { return eligible_; }

    // Every shape of every GPU count the request allows, most GPUs first; throws
    // InfeasibleError (via explain_no_shape) when there is none.
    std::vector<Shape> shapes();
    // TP slots per eligible cluster (aligned with eligible()).
    const std::vector<tpa::ClusterInventory>& inventories(int tp);
    std::vector<int> capacity(int tp);  // slots per eligible cluster
    // Eligible clusters (topology indices) with slots for this tp, most compute first.
    std::vector<int> clusters_by_compute(int tp);
    int slots_of(int tp, int cluster);  // by topology index; 0 when not eligible

    // cell_cluster[stage * dp + replica] = topology cluster index. Splits layers by the speed of
    // the slowest GPU serving each stage under memory caps (TPA level 1, only splits Megatron-LM
    // can launch: tpa::megatron_split), places cells on the fastest free slots of their
    // cluster, and scores with the cost model. A layout that does not fit comes back with
    // prediction.feasible = false and the reason.
    Plan realise(const Shape& shape, const std::vector<int>& cell_cluster);
    // The same, with layers split as evenly as Megatron-LM can launch and cells on slots in
    // Cluster::node_order: what a topology-oblivious launcher does.
    Plan realise_plain(const Shape& shape, const std::vector<int>& cell_cluster);

    // Moves layers between stages (tpa::split_moves: the split stays one Megatron-LM can launch)
    // while the cost model says the plan gets better (the split above is a speed-proportional
    // estimate; the cost model also sees the embedding and logits on the end stages, memory and
    // communication). At most max_rounds moves.
    Plan polish_layers(Plan plan, int max_rounds = 16);
    // Scores a plan built elsewhere (first-fit's sequential layout) and counts it.
    Plan evaluate(Plan plan) { return finish(std::move(plan)); }

    double score(const Plan& p) const;  // lower is better; +inf when infeasible
    bool better(const Plan& a, const Plan& b) const;
    int evaluations() const { return evaluations_; }

    bool out_of_time();
    bool hit_limit() const { return hit_limit_; }
    double limit_s() const { return limit_s_; }
    double elapsed_ms() const;
    const std::string& last_failure() const { return last_failure_; }

private:
    Plan skeleton(const Shape& shape) const;
    Plan finish(Plan plan);

    const PlanRequest& req_;
    const CostModel& cost_;
    std::string policy_;
    double limit_s_;
    Clock::time_point start_, deadline_;
    std::vector<int> eligible_;
    std::map<int, std::vector<tpa::ClusterInventory>> inventories_;
    int evaluations_ = 0;
    bool hit_limit_ = false;
    std::string last_failure_;
};

// Keeps the best plan and the best one of a different shape or orientation (the runner-up
// the text explanation compares against).
class BestKeeper {
public:
    explicit BestKeeper(const Evaluator& eval) : eval_(eval) {}
    // key: what makes two candidates "different" for the runner-up (shape + orientation).
    void offer(const Plan& plan, const std::string& key);
    bool empty() const { return !best_; }
    const Plan& best() const { return *best_; }

    // Fills policy, planning time, runner-up and note; throws InfeasibleError when nothing
    // feasible was found.
    // The best and the runner-up get polish_layers() first unless polish is false (first-fit
    // keeps the even split a plain launcher uses).
    PlanResult result(Evaluator& eval, std::string note, bool polish = true) const;

private:
    const Evaluator& eval_;
    std::optional<Plan> best_, runner_;
    std::string best_key_, runner_key_;
};

// Shape and orientation of a plan, for BestKeeper keys.
std::string layout_key(const Plan& plan);

}  // namespace spiderflow::baselines
