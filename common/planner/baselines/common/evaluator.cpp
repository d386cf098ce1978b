#include "common/planner/baselines/common/evaluator.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/plan/layer_split.h"
#include "common/plan/plan_text.h"
#include "common/planner/tpa/level1.h"
#include "common/util/errors.h"

namespace spiderflow::baselines {

Evaluator::Evaluator(const PlanRequest& request, const CostModel& cost, std::string policy, double default_limit_s)
    : req_(request), cost_(cost), policy_(std::move(policy)), start_(Clock::now()) {
    req_.job.validate();
    limit_s_ = request.time_limit_s > 0 ? request.time_limit_s : default_limit_s;
    deadline_ = start_ + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limit_s_));
    eligible_ = eligible_clusters(request, cost.topology());
}

std::vector<Shape> Evaluator::shapes() {
    int available = 0;
    for (int c : eligible_) available += topology().clusters[static_cast<size_t>(c)].total_gpus();
    std::vector<int> counts = candidate_gpu_counts(req_, available);
    // The same thinning of GPU counts as SpinSearch: the largest counts plus a geometric spread.
    if (counts.size() > 16) {
        std::vector<int> keep(counts.begin(), counts.begin() + 10);
        for (size_t i = 10; i < counts.size(); i += (counts.size() - 10) / 6 + 1) keep.push_back(counts[i]);
        counts = keep;
    }
    std::vector<Shape> out;
    for (int n : counts)
        for (const Shape& s : enumerate_shapes(req_, topology(), cost_, n, eligible_)) out.push_back(s);
    if (out.empty()) explain_no_shape(req_, topology(), cost_, eligible_, counts);
    return out;
}

const std::vector<tpa::ClusterInventory>& Evaluator::inventories(int tp) {
    auto it = inventories_.find(tp);
    if (it != inventories_.end()) return it->second;
    std::vector<tpa::ClusterInventory> inv;
    for (int c : eligible_) inv.push_back(tpa::build_inventory(topology(), cost_, c, tp));
    return inventories_.emplace(tp, std::move(inv)).first->second;
}

std::vector<int> Evaluator::capacity(int tp) {
    std::vector<int> out;
    for (const auto& inv : inventories(tp)) out.push_back(inv.slots());
    return out;
}

int Evaluator::slots_of(int tp, int cluster) {
    const auto& invs = inventories(tp);
    for (size_t i = 0; i < eligible_.size(); ++i)
        if (eligible_[i] == cluster) return invs[i].slots();
    return 0;
}

std::vector<int> Evaluator::clusters_by_compute(int tp) {
    const auto& invs = inventories(tp);
    std::vector<size_t> idx;
    for (size_t i = 0; i < invs.size(); ++i)
        if (invs[i].slots() > 0) idx.push_back(i);
    std::stable_sort(idx.begin(), idx.end(),
                     [&](size_t a, size_t b) { return invs[a].total_flops() > invs[b].total_flops(); });
    std::vector<int> out;
    for (size_t i : idx) out.push_back(eligible_[i]);
    return out;
}

Plan Evaluator::skeleton(const Shape& sh) const {
    Plan plan;
    plan.job = req_.job;
    plan.job.gpus = sh.gpus();
    plan.job.micro_batch = sh.micro_batch;
    plan.tp = sh.tp;
    plan.pp = sh.pp;
    plan.dp = sh.dp;
    plan.micro_batch = sh.micro_batch;
    plan.num_micro_batches = req_.job.global_batch / (sh.dp * sh.micro_batch);
    plan.hierarchical_dp = true;
    plan.policy = policy_;
    plan.cells.assign(static_cast<size_t>(sh.pp) * sh.dp, StageCell{});
    return plan;
}

Plan Evaluator::finish(Plan plan) {
    plan.prediction = cost_.estimate(plan);
    ++evaluations_;
    if (!plan.prediction.feasible) last_failure_ = plan.prediction.infeasible_reason;
    return plan;
}

namespace {

Plan infeasible(Plan plan, const std::string& why) {
    plan.prediction = Prediction{};
    plan.prediction.feasible = false;
    plan.prediction.infeasible_reason = why;
    return plan;
}

}  // namespace

Plan Evaluator::realise(const Shape& sh, const std::vector<int>& cell_cluster) {
    Plan plan = skeleton(sh);
    const int pp = sh.pp, dp = sh.dp;
    if (cell_cluster.size() != plan.cells.size()) return infeasible(plan, "assignment has the wrong size");
    const auto& invs = inventories(sh.tp);
    std::map<int, size_t> inv_of;
    for (size_t i = 0; i < eligible_.size(); ++i) inv_of[eligible_[i]] = i;

    // Slots of each cluster, fastest GPU type first, node order inside a type; cells take them
    // stage-major so one stage's replicas sit on neighbouring nodes.
    struct Taken {
        size_t group = 0, slot = 0;
    };
    std::map<int, Taken> cursor;
    std::vector<double> speed(static_cast<size_t>(pp), std::numeric_limits<double>::infinity());
    std::vector<double> memory(static_cast<size_t>(pp), std::numeric_limits<double>::infinity());
    for (int s = 0; s < pp; ++s) {
        for (int r = 0; r < dp; ++r) {
            const int c = cell_cluster[static_cast<size_t>(s) * dp + r];
            auto it = inv_of.find(c);
            if (it == inv_of.end()) return infeasible(plan, "cluster " + std::to_string(c) + " is not eligible");
            const tpa::ClusterInventory& inv = invs[it->second];
            Taken& t = cursor[c];
            while (t.group < inv.groups.size() && t.slot >= inv.groups[t.group].slots.size()) {
                ++t.group;
                t.slot = 0;
            }
            if (t.group >= inv.groups.size())
                return infeasible(plan, "cluster '" + topology().clusters[static_cast<size_t>(c)].name +
                                            "' has only " + std::to_string(inv.slots()) + " tp=" +
                                            std::to_string(sh.tp) + " slots");
            const tpa::SlotGroup& g = inv.groups[t.group];
            const tpa::Slot& slot = g.slots[t.slot++];
            plan.cell(s, r) = StageCell{c, slot.node, slot.first_gpu};
            speed[static_cast<size_t>(s)] = std::min(speed[static_cast<size_t>(s)], g.flops);
            memory[static_cast<size_t>(s)] = std::min(memory[static_cast<size_t>(s)], g.memory_bytes);
        }
    }
    const tpa::MemoryModel mem = tpa::memory_model(req_.job, sh);
    std::vector<int> cap(static_cast<size_t>(pp));
    for (int s = 0; s < pp; ++s) cap[static_cast<size_t>(s)] = std::max(1, mem.max_layers(s, memory[static_cast<size_t>(s)]));
    // Only splits Megatron-LM can launch (equal middle stages), so what is scored is what runs.
    plan.layers_per_stage = tpa::megatron_split(req_.job.model.layers, speed, cap, tpa::end_stage_work(req_.job.model, pp));
    if (plan.layers_per_stage.empty()) {
        last_failure_ = tpa::split_failure(req_.job.model.layers, speed, cap);
        return infeasible(plan, last_failure_);
    }
    return finish(std::move(plan));
}

Plan Evaluator::realise_plain(const Shape& sh, const std::vector<int>& cell_cluster) {
    Plan plan = skeleton(sh);
    if (cell_cluster.size() != plan.cells.size()) return infeasible(plan, "assignment has the wrong size");
    const Topology& topo = topology();
    // Node order, tp-aligned blocks inside NVLink domains: what sequential allocation gives.
    std::map<int, std::pair<size_t, int>> cursor;  // cluster -> (position in its node order, next slot of that node)
    for (int s = 0; s < sh.pp; ++s) {
        for (int r = 0; r < sh.dp; ++r) {
            const int c = cell_cluster[static_cast<size_t>(s) * sh.dp + r];
            const Cluster& cl = topo.clusters[static_cast<size_t>(c)];
            const std::vector<int>& order = cl.node_order();
            auto& [at, slot] = cursor[c];
            bool placed = false;
            while (at < order.size()) {
                const int node = order[at];
                const std::vector<int> firsts = tp_group_first_gpus(cl.nodes[static_cast<size_t>(node)], sh.tp);
                if (slot < static_cast<int>(firsts.size())) {
                    plan.cell(s, r) = StageCell{c, node, firsts[static_cast<size_t>(slot)]};
                    ++slot;
                    placed = true;
                    break;
                }
                ++at;
                slot = 0;
            }
            if (!placed) {
                last_failure_ = "cluster '" + cl.name + "' ran out of tp-wide slots";
                return infeasible(plan, last_failure_);
            }
        }
    }
    plan.layers_per_stage = megatron_even_split(req_.job.model.layers, sh.pp);
    return finish(std::move(plan));
}

Plan Evaluator::polish_layers(Plan plan, int max_rounds) {
    if (!plan.prediction.feasible || plan.pp < 2) return plan;
    for (int round = 0; round < max_rounds; ++round) {
        Plan best = plan;
        // Moves that keep the split one Megatron-LM can launch.
        for (std::vector<int>& split : tpa::split_moves(plan.layers_per_stage)) {
            Plan trial = plan;
            trial.layers_per_stage = std::move(split);
            trial = finish(std::move(trial));
            if (better(trial, best)) best = std::move(trial);
        }
        if (best.layers_per_stage == plan.layers_per_stage) break;
        plan = std::move(best);
    }
    return plan;
}

double Evaluator::score(const Plan& p) const {
    if (!p.prediction.feasible) return std::numeric_limits<double>::infinity();
    return req_.objective == Objective::throughput_per_gpu ? p.prediction.iteration_s * p.world_size()
                                                           : p.prediction.iteration_s;
}

bool Evaluator::better(const Plan& a, const Plan& b) const {
    return better_prediction(a.prediction, a.world_size(), b.prediction, b.world_size(), req_.objective);
}

bool Evaluator::out_of_time() {
    if (Clock::now() > deadline_) hit_limit_ = true;
    return hit_limit_;
}

double Evaluator::elapsed_ms() const {
    return std::chrono::duration<double, std::milli>(Clock::now() - start_).count();
}

void BestKeeper::offer(const Plan& plan, const std::string& key) {
    if (!plan.prediction.feasible) return;
    if (!best_ || eval_.better(plan, *best_)) {
        if (best_ && best_key_ != key) {
            runner_ = best_;
            runner_key_ = best_key_;
        }
        best_ = plan;
        best_key_ = key;
        return;
    }
    if (key != best_key_ && (!runner_ || eval_.better(plan, *runner_))) {
        runner_ = plan;
        runner_key_ = key;
    }
}

PlanResult BestKeeper::result(Evaluator& eval, std::string note, bool polish) const {
    if (!best_) {
        const std::string why = eval.last_failure();
        throw InfeasibleError("policy " + eval.policy() + " found no layout that passes the cost model" +
                              (why.empty() ? std::string() : ": " + why) +
                              (eval.hit_limit() ? " (time limit reached)" : ""));
    }
    PlanResult r;
    r.plan = polish ? eval.polish_layers(*best_) : *best_;
    std::optional<Plan> runner = runner_;
    if (runner) {
        if (polish) runner = eval.polish_layers(*runner);
        // Polishing may reorder the two.
        if (eval.better(*runner, r.plan)) std::swap(*runner, r.plan);
    }
    r.plan.policy = eval.policy();
    r.plan.planning_ms = eval.elapsed_ms();
    if (runner) {
        r.runner_up = *runner;
        r.runner_up->policy = eval.policy();
        r.runner_up->planning_ms = r.plan.planning_ms;
    }
    r.hit_limit = eval.hit_limit();
    if (r.hit_limit) note += (note.empty() ? "" : "; ") + std::string("time limit of ") +
                             std::to_string(static_cast<int>(eval.limit_s())) + " s cut the search short";
    r.note = note;
    return r;
}

std::string layout_key(const Plan& p) {
    return std::to_string(p.tp) + "/" + std::to_string(p.pp) + "/" + std::to_string(p.dp) + "/" +
           std::to_string(p.micro_batch) + "/" + plan_orientation(p);
}

}  // namespace spiderflow::baselines
