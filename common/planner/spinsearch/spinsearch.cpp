#include "common/planner/spinsearch/spinsearch.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include "common/plan/plan_traffic.h"
#include "common/planner/shapes.h"
#include "common/planner/stage_fill.h"
#include "common/planner/spinsearch/fan_out.h"
#include "common/planner/spinsearch/skeleton.h"
#include "common/planner/tpa/inventory.h"
#include "common/planner/tpa/level1.h"
#include "common/planner/tpa/level2.h"
#include "common/util/errors.h"

namespace spiderflow {
namespace {

using Clock = std::chrono::steady_clock;

// One candidate layout: a shape, its cluster-level skeleton, and the finished, scored plan.
struct Candidate {
    Shape shape;
    int groups = 1;                  // orientation: 1 = DP local, dp = pipelines local, 0 = fan-out
    int fan_depth = 0;               // > 0: a fan-out layout with this many hub stages (fan_out.h)
    bool reversed = false;           // the fill's stages laid out from the last one (reverse_stages)
    bool whole_groups = true;        // the fill keeps each group in one cluster where room allows (fill())
    std::vector<spin::ClusterShare> order;
    std::vector<int> cell_cluster;
    Plan plan;
    bool exact = false;              // level 2 solved with the ILP
    int ilp_solves = 0;
    int ilp_not_optimal = 0;
};

// The cells of a fill-based candidate (groups >= 1) over its order.
std::vector<int> refill(const Candidate& c) {
    const std::vector<int> cells = spin::fill(c.order, c.shape.pp, c.shape.dp, c.groups, c.whole_groups);
    return c.reversed ? spin::reverse_stages(cells, c.shape.pp, c.shape.dp) : cells;
}

// The shares a layout actually uses, hub first, in order of first appearance.
std::vector<spin::ClusterShare> shares_in_use(const std::vector<int>& cell_cluster, const spin::ClusterShare& hub,
                                              const std::vector<spin::ClusterShare>& others) {
    std::vector<spin::ClusterShare> used{hub};
    for (int cl : cell_cluster) {
        if (std::any_of(used.begin(), used.end(), [&](const spin::ClusterShare& u) { return u.cluster == cl; })) continue;
        for (const spin::ClusterShare& o : others)
            if (o.cluster == cl) used.push_back(o);
    }
    return used;
}

// The fan-out's candidates are cut to the clusters nearest the hub (Search::fan_out_others).
constexpr size_t kFanOutNeighbours = 32;

class Search {
public:
    Search(const PlanRequest& request, const CostModel& cost, const SpinSearchOptions& options)
        : req_(request), cost_(cost), fast_(cost.topology(), cost.catalog(), search_options(cost.options())),
          topo_(cost.topology()), opt_(options), start_(Clock::now()) {
        const double limit = request.time_limit_s > 0 ? request.time_limit_s : 60.0;
        deadline_ = start_ + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limit));
    }

    PlanResult run();

private:
    const std::vector<tpa::ClusterInventory>& inventories(int tp);
    std::vector<int> candidates_for(int tp);  // indices into inventories(tp), best compute first
    bool realise(Candidate& c, bool exact);
    bool better(const Plan& a, const Plan& b) const {
        return better_prediction(a.prediction, a.world_size(), b.prediction, b.world_size(), req_.objective);
    }
    double score(const Plan& p) const {
        if (!p.prediction.feasible) return std::numeric_limits<double>::infinity();
        return req_.objective == Objective::throughput_per_gpu ? p.prediction.iteration_s * p.world_size()
                                                               : p.prediction.iteration_s;
    }
    bool out_of_time() {
        if (Clock::now() > deadline_) hit_limit_ = true;
        return hit_limit_;
    }
    // The Megatron-LM limit outranks plain memory failures in the final message: it says what
    // to change.
    void split_failed(int total, const std::vector<double>& speed, const std::vector<int>& cap) {
        last_failure_ = tpa::split_failure(total, speed, cap);
        if (!tpa::split_layers(total, speed, cap).empty()) megatron_blocked_ = last_failure_;
    }
    // seeds: positions in candidates_for(shape.tp), the strongest cluster at 0.
    std::vector<Candidate> spin_shape(const Shape& shape, const std::vector<int>& seeds,
                                      const std::vector<int>& groups_filter);
    std::vector<Candidate> screen(const Shape& shape, int* seed);
    void try_reversed(Candidate& c);
    std::vector<spin::ClusterShare> fan_out_others(int tp, int hub, int cells);
    void polish(Candidate& c);
    void polish_split(Candidate& c);  // layer moves until none helps

    static CostOptions search_options(CostOptions o) {
        o.scaling_efficiency = false;  // a second estimate per candidate; only the winner needs it
        return o;
    }

    const PlanRequest& req_;
    const CostModel& cost_;
    CostModel fast_;                   // same model, scaling efficiency off, for scoring candidates
    const Topology& topo_;
    SpinSearchOptions opt_;
    Clock::time_point start_, deadline_;
    std::vector<int> eligible_;
    std::map<int, std::vector<tpa::ClusterInventory>> inventories_;
    std::set<std::array<int, 4>> memory_limited_;   // PlanResult::memory_limited_shapes
    std::vector<int> inv_index_;   // topology cluster -> its index in every inventories(tp) (eligible_'s order)
    std::map<int, std::vector<int>> by_distance_;   // eligible_ index -> the others, widest path from it first
    std::map<int, std::vector<int>> candidates_;
    bool hit_limit_ = false;
    int estimates_ = 0;
    int ilp_solves_ = 0;
    int ilp_not_optimal_ = 0;
    std::string last_failure_;
    std::string megatron_blocked_;     // a split fitted, but none that Megatron-LM can launch
};

const std::vector<tpa::ClusterInventory>& Search::inventories(int tp) {
    auto it = inventories_.find(tp);
    if (it != inventories_.end()) return it->second;
    std::vector<tpa::ClusterInventory> inv;
    for (int c : eligible_) inv.push_back(tpa::build_inventory(topo_, cost_, c, tp));
    return inventories_.emplace(tp, std::move(inv)).first->second;
}

std::vector<int> Search::candidates_for(int tp) {
    auto it = candidates_.find(tp);
    if (it != candidates_.end()) return it->second;
    const auto& inv = inventories(tp);
    std::vector<int> idx;
    for (int i = 0; i < static_cast<int>(inv.size()); ++i)
        if (inv[static_cast<size_t>(i)].slots() > 0) idx.push_back(i);
    std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) {
        return inv[static_cast<size_t>(a)].total_flops() > inv[static_cast<size_t>(b)].total_flops();
    });
    return candidates_.emplace(tp, std::move(idx)).first->second;
}

// TPA on one skeleton: level 1 splits layers by the speed each stage will get, level 2 places
// cells on node groups inside each cluster, level 1 re-splits by the speed actually placed.
bool Search::realise(Candidate& c, bool exact) {
    const Shape& sh = c.shape;
    const int pp = sh.pp, dp = sh.dp;
    const auto& invs = inventories(sh.tp);

    std::vector<int> used;  // clusters in skeleton order
    std::map<int, size_t> slot_of;
    for (const spin::ClusterShare& s : c.order) {
        slot_of[s.cluster] = used.size();
        used.push_back(s.cluster);
    }
    std::vector<tpa::ClusterDemand> demands(used.size());
    for (size_t i = 0; i < used.size(); ++i) {
        demands[i].cluster = used[i];
        demands[i].stage_cells.assign(static_cast<size_t>(pp), 0);
    }
    for (int s = 0; s < pp; ++s)
        for (int r = 0; r < dp; ++r)
            ++demands[slot_of[c.cell_cluster[static_cast<size_t>(s) * dp + r]]].stage_cells[static_cast<size_t>(s)];
    std::vector<const tpa::ClusterInventory*> inv_ptr;
    for (int cl : used) inv_ptr.push_back(&invs[static_cast<size_t>(inv_index_[static_cast<size_t>(cl)])]);

    const tpa::MemoryModel mem = tpa::memory_model(req_.job, sh);
    const int layers_total = req_.job.model.layers;
    // Level 1: expected speed of each stage = the slowest cluster serving it.
    std::vector<double> speed(static_cast<size_t>(pp), 0.0);
    std::vector<int> cap(static_cast<size_t>(pp), layers_total);
    for (size_t i = 0; i < used.size(); ++i) {
        int cells = 0;
        for (int k : demands[i].stage_cells) cells += k;
        const double f = inv_ptr[i]->best_flops(cells);
        for (int s = 0; s < pp; ++s)
            if (demands[i].stage_cells[static_cast<size_t>(s)] > 0) {
                double& sp = speed[static_cast<size_t>(s)];
                sp = sp > 0 ? std::min(sp, f) : f;
            }
    }
    for (int s = 0; s < pp; ++s) {
        double m = std::numeric_limits<double>::infinity();
        for (size_t i = 0; i < used.size(); ++i)
            if (demands[i].stage_cells[static_cast<size_t>(s)] > 0) m = std::min(m, inv_ptr[i]->max_memory());
        cap[static_cast<size_t>(s)] = std::max(1, mem.max_layers(s, m));
    }
    // Effective speed: a layer costs its compute for every micro-batch plus, on stages whose DP
    // group crosses sites, its share of the exposed WAN all-reduce. Stages with a WAN DP group
    // therefore get fewer layers (measured: this is what let the genetic baseline beat plain
    // compute-proportional splits on worldwide-8).
    // Compute per layer as Kaplan's 6 x active weights per token, a rougher figure than
    // cost/flops.h's, which adds the attention scores (about 15% more for llama3-8b at 4k
    // tokens): switching would move layers between stages, a planner change to measure
    // (bench/planner_bench) rather than a refactor.
    const ModelArch& arch = req_.job.model;
    const double mb_flops_per_layer = 6.0 * arch.active_params_per_layer() * sh.micro_batch * req_.job.seq_len / sh.tp;
    const int micro_batches = req_.job.global_batch / (dp * sh.micro_batch);
    std::vector<double> dp_s_per_layer(static_cast<size_t>(pp), 0.0);
    for (int s = 0; s < pp; ++s) {
        std::vector<int> sites;
        for (size_t i = 0; i < used.size(); ++i)
            if (demands[i].stage_cells[static_cast<size_t>(s)] > 0) sites.push_back(used[i]);
        if (sites.size() < 2) continue;
        double bw = std::numeric_limits<double>::infinity();
        for (size_t i = 0; i < sites.size(); ++i)
            bw = std::min(bw, topo_.path(sites[i], sites[(i + 1) % sites.size()]).bandwidth_Bps);
        // One layer's gradients (one per parameter, as stage_gradient_bytes() counts) on each
        // edge of the ring over the sites.
        const double bytes = ring_edge_bytes(arch.params_per_layer() * req_.job.bytes_per_param(), static_cast<int>(sites.size()));
        dp_s_per_layer[static_cast<size_t>(s)] = bw > 0 ? bytes / bw * (1.0 - cost_.options().dp_overlap) : 1e9;
    }
    auto effective = [&](std::vector<double> flops) {
        for (int s = 0; s < pp; ++s) {
            double& f = flops[static_cast<size_t>(s)];
            if (f <= 0) continue;
            const double per_layer = (micro_batches + pp - 1) * mb_flops_per_layer / f + dp_s_per_layer[static_cast<size_t>(s)];
            f = 1.0 / per_layer;
        }
        return flops;
    };
    // Only splits Megatron-LM can launch (equal middle stages), so what is scored is what runs.
    const std::vector<double> ends = tpa::end_stage_work(arch, pp);
    std::vector<int> layers = tpa::megatron_split(layers_total, effective(speed), cap, ends);
    if (layers.empty()) {
        split_failed(layers_total, effective(speed), cap);
        memory_limited_.insert(sh.key());
        return false;
    }

    tpa::Level2Options l2;
    l2.exact = exact;
    l2.solver.time_limit_s = opt_.ilp_time_limit_s;
    std::vector<tpa::Placement> placed;
    std::vector<int> plain_layers;  // compute-proportional split, the alternative to the WAN-aware one
    for (int pass = 0; pass < (exact ? 2 : 1); ++pass) {
        placed = tpa::place_all(inv_ptr, demands, layers, mem, dp, l2);
        for (const tpa::Placement& p : placed) {
            if (p.used_ilp) {
                ++c.ilp_solves;
                if (p.status != milp::SolveStatus::optimal) ++c.ilp_not_optimal;
            }
            if (!p.ok) {
                last_failure_ = p.why;
                memory_limited_.insert(sh.key());
                return false;
            }
        }
        // Level 1 again, with the speed and memory each stage actually got.
        std::vector<double> got(static_cast<size_t>(pp), 0.0);
        std::vector<double> got_mem(static_cast<size_t>(pp), std::numeric_limits<double>::infinity());
        for (const tpa::Placement& p : placed)
            for (int s = 0; s < pp; ++s) {
                const double f = p.stage_flops[static_cast<size_t>(s)];
                if (f <= 0) continue;
                double& g = got[static_cast<size_t>(s)];
                g = g > 0 ? std::min(g, f) : f;
                got_mem[static_cast<size_t>(s)] = std::min(got_mem[static_cast<size_t>(s)], p.stage_memory[static_cast<size_t>(s)]);
            }
        for (int s = 0; s < pp; ++s) cap[static_cast<size_t>(s)] = std::max(1, mem.max_layers(s, got_mem[static_cast<size_t>(s)]));
        plain_layers = tpa::megatron_split(layers_total, got, cap, ends);
        std::vector<int> again = tpa::megatron_split(layers_total, effective(got), cap, ends);
        if (again.empty()) {
            split_failed(layers_total, effective(got), cap);
            memory_limited_.insert(sh.key());
            return false;
        }
        if (again == layers) break;
        layers = again;
    }
    c.exact = exact;
    for (int s = 0; s < pp; ++s)
        if (cap[static_cast<size_t>(s)] < layers_total && layers[static_cast<size_t>(s)] >= cap[static_cast<size_t>(s)])
            memory_limited_.insert(sh.key());

    Plan& plan = c.plan;
    plan = Plan{};
    plan.job = req_.job;
    plan.job.gpus = sh.gpus();
    plan.job.micro_batch = sh.micro_batch;
    plan.tp = sh.tp;
    plan.pp = pp;
    plan.dp = dp;
    plan.micro_batch = sh.micro_batch;
    plan.num_micro_batches = req_.job.global_batch / (dp * sh.micro_batch);
    plan.layers_per_stage = layers;
    plan.hierarchical_dp = true;
    plan.policy = "spinsearch";
    plan.cells.assign(static_cast<size_t>(pp) * dp, StageCell{});
    std::vector<std::vector<size_t>> next(used.size(), std::vector<size_t>(static_cast<size_t>(pp), 0));
    for (int s = 0; s < pp; ++s)
        for (int r = 0; r < dp; ++r) {
            const size_t i = slot_of[c.cell_cluster[static_cast<size_t>(s) * dp + r]];
            const tpa::Slot& slot = placed[i].stage_slots[static_cast<size_t>(s)][next[i][static_cast<size_t>(s)]++];
            plan.cell(s, r) = StageCell{used[i], slot.node, slot.first_gpu};
        }
    plan.prediction = fast_.estimate(plan);
    ++estimates_;
    // The WAN-aware split is a model of the model; let the cost model pick between the two.
    if (!plain_layers.empty() && plain_layers != plan.layers_per_stage) {
        Plan alt = plan;
        alt.layers_per_stage = plain_layers;
        alt.prediction = fast_.estimate(alt);
        ++estimates_;
        if (better(alt, plan)) plan = std::move(alt);
    }
    ilp_solves_ += c.ilp_solves;
    ilp_not_optimal_ += c.ilp_not_optimal;
    if (!plan.prediction.feasible) {
        last_failure_ = plan.prediction.infeasible_reason;
        memory_limited_.insert(sh.key());
    }
    return plan.prediction.feasible;
}

// The clusters a fan-out from `hub` (an index into inventories(tp)) may continue on: those with
// slots, widest path from the hub first, cut to the nearest ones holding twice the cells (at least
// kFanOutNeighbours of them). The fan-out picks among routes from the hub; scanning a thousand
// clusters per replica step cost most of a plan's time at 1,024 clusters, for picks that came from
// the nearest. The order is the hub's whatever the shape, so it is sorted once per hub.
std::vector<spin::ClusterShare> Search::fan_out_others(int tp, int hub, int cells) {
    auto it = by_distance_.find(hub);
    if (it == by_distance_.end()) {
        std::vector<int> order;
        for (size_t i = 0; i < eligible_.size(); ++i)
            if (static_cast<int>(i) != hub) order.push_back(static_cast<int>(i));
        const int from = eligible_[static_cast<size_t>(hub)];
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
            const PathInfo &x = topo_.path(from, eligible_[static_cast<size_t>(a)]),
                           &y = topo_.path(from, eligible_[static_cast<size_t>(b)]);
            return x.bandwidth_Bps != y.bandwidth_Bps ? x.bandwidth_Bps > y.bandwidth_Bps : x.latency_s < y.latency_s;
        });
        it = by_distance_.emplace(hub, std::move(order)).first;
    }
    const auto& invs = inventories(tp);
    std::vector<spin::ClusterShare> out;
    long slots = 0;
    for (int i : it->second) {
        if (out.size() >= kFanOutNeighbours && slots >= 2L * cells) break;
        const tpa::ClusterInventory& inv = invs[static_cast<size_t>(i)];
        if (inv.slots() == 0) continue;
        out.push_back({inv.cluster, inv.slots(), 0.0});
        slots += out.back().slots;
    }
    return out;
}

std::vector<Candidate> Search::spin_shape(const Shape& shape, const std::vector<int>& seeds,
                                          const std::vector<int>& groups_filter) {
    std::vector<Candidate> out;
    const auto& invs = inventories(shape.tp);
    const std::vector<int> cand = candidates_for(shape.tp);
    if (cand.empty()) return out;
    const double ref = spin::link_reference_Bps(req_.job, shape, invs[static_cast<size_t>(cand.front())].best_flops(1));
    const int cells = shape.pp * shape.dp;
    std::set<std::vector<int>> seen;
    for (int k : seeds) {
        if (k >= static_cast<int>(cand.size())) continue;
        std::vector<spin::ClusterShare> grown = spin::spin(topo_, invs, cand, k, cells, ref);
        if (grown.empty()) continue;
        std::vector<std::vector<spin::ClusterShare>> orders{grown};
        if (groups_filter.empty() && grown.size() > 2) orders.push_back(spin::chain_order(topo_, grown));
        // Atlas's rule beside the fills (stage_fill.h): every cluster along the widest-link chain
        // from the seed, whole stages each. On fragmented capacity it keeps each stage's DP group
        // in one cluster where the fills split it.
        if (groups_filter.empty()) {
            std::vector<spin::ClusterShare> all{grown.front()};
            for (int i : cand) {
                const tpa::ClusterInventory& inv = invs[static_cast<size_t>(i)];
                if (inv.cluster != all.front().cluster)
                    all.push_back({inv.cluster, inv.slots(), inv.best_flops(std::min(cells, inv.slots()))});
            }
            all = spin::chain_order(topo_, all, {shape.dp, shape.pp});
            std::vector<std::pair<int, int>> slots;
            for (const spin::ClusterShare& s : all) slots.emplace_back(s.cluster, s.slots);
            Candidate c;
            c.shape = shape;
            c.groups = 1;
            c.order = all;
            c.cell_cluster = fill_whole_stages(slots, shape.pp, shape.dp);
            if (!c.cell_cluster.empty() && seen.insert(c.cell_cluster).second && realise(c, false))
                out.push_back(std::move(c));
        }
        for (const auto& order : orders) {
        std::vector<int> groups = groups_filter.empty() ? spin::group_choices(shape.dp, static_cast<int>(order.size()))
                                                        : groups_filter;
        for (int g : groups) {
            if (shape.dp % g != 0) continue;
            // Mixed orientations also with groups that cross sites between stages: a cluster too
            // small for a whole group may hold a stage of one (fragmented capacity: two replicas
            // inside one cluster, two from an H100 cluster's stage 0 to another's stage 1, 9%
            // faster than every whole-group fill).
            const bool mixed = g > 1 && g < shape.dp && groups_filter.empty();
            for (bool whole : {true, false}) {
                if (!whole && !mixed) continue;
                Candidate c;
                c.shape = shape;
                c.groups = g;
                c.order = order;
                c.whole_groups = whole;
                c.cell_cluster = refill(c);
                if (c.cell_cluster.empty() || !seen.insert(c.cell_cluster).second) continue;
                if (realise(c, false)) out.push_back(std::move(c));
                if (out_of_time()) return out;
            }
        }
        }
        // Fan-out from this seed: screening tries the deepest hub-first one, the full spin all.
        const bool screening = !groups_filter.empty();
        const tpa::ClusterInventory& hub_inv = invs[static_cast<size_t>(cand[static_cast<size_t>(k)])];
        const spin::ClusterShare hub{hub_inv.cluster, hub_inv.slots(), 0.0};
        const std::vector<spin::ClusterShare> others = fan_out_others(shape.tp, cand[static_cast<size_t>(k)], cells);
        for (int depth : spin::fan_out_depths(hub.slots, shape.pp, shape.dp)) {
            for (bool hub_first : {true, false}) {
                Candidate c;
                c.shape = shape;
                c.groups = 0;
                c.fan_depth = depth;
                c.cell_cluster = spin::fan_out(topo_, hub, others, shape.pp, shape.dp, depth, hub_first);
                if (c.cell_cluster.empty() || !seen.insert(c.cell_cluster).second) continue;
                c.order = shares_in_use(c.cell_cluster, hub, others);
                if (realise(c, false)) out.push_back(std::move(c));
                if (out_of_time() || screening) return out;
            }
        }
    }
    return out;
}

// Screening: the two pure orientations and the deepest fan-out from the strongest seed. When none
// of them fits, from the next seeds (by compute) whose GPUs have more memory than its own, up to
// seed_clusters seeds in all: a seed of small-memory GPUs otherwise hid every layout of a shape
// that fits where the memory is (three fragmented clusters, the strongest of A100-40GB: no tp2
// pp2 dp4 layout screened, none planned; the first 80 GB seed grew into the 40 GB cluster again,
// the second one fitted). Only shapes that found nothing pay. *seed: the seed that screened.
std::vector<Candidate> Search::screen(const Shape& shape, int* seed) {
    const auto& invs = inventories(shape.tp);
    const std::vector<int> cand = candidates_for(shape.tp);
    *seed = 0;
    std::vector<Candidate> got = spin_shape(shape, {0}, {1, shape.dp});
    if (!got.empty() || cand.empty()) return got;
    const double first = invs[static_cast<size_t>(cand.front())].max_memory();
    int tries = 1;
    for (int k = 1; k < static_cast<int>(cand.size()) && tries < opt_.seed_clusters && !out_of_time(); ++k) {
        if (invs[static_cast<size_t>(cand[static_cast<size_t>(k)])].max_memory() <= first) continue;
        ++tries;
        *seed = k;
        got = spin_shape(shape, {k}, {1, shape.dp});
        if (!got.empty()) return got;
    }
    return {};
}

// Local moves: shift layers between stages as far as Megatron-LM can still launch the split
// (tpa::split_moves); swap two neighbouring clusters in the skeleton order (which stages/groups
// meet across which link). Kept only when the cost model says the plan got better.
void Search::polish_split(Candidate& c) {
    for (int round = 0; round < opt_.polish_rounds && !out_of_time(); ++round) {
        bool moved = false;
        for (std::vector<int>& split : tpa::split_moves(c.plan.layers_per_stage)) {
            if (out_of_time()) break;
            Plan t = c.plan;
            t.layers_per_stage = std::move(split);
            t.prediction = fast_.estimate(t);
            ++estimates_;
            if (better(t, c.plan)) {
                c.plan = std::move(t);
                moved = true;
            }
        }
        if (!moved) break;
    }
}

// The pipeline turned round (fan-outs already come in both directions), judged with its own
// split polished.
void Search::try_reversed(Candidate& c) {
    if (c.fan_depth > 0 || c.shape.pp < 2 || out_of_time()) return;
    Candidate t = c;
    t.reversed = !c.reversed;
    t.cell_cluster = spin::reverse_stages(c.cell_cluster, c.shape.pp, c.shape.dp);
    if (!realise(t, c.exact)) return;
    polish_split(t);
    if (better(t.plan, c.plan)) c = std::move(t);
}

void Search::polish(Candidate& c) {
    polish_split(c);
    try_reversed(c);
    for (int round = 0; round < opt_.polish_rounds && !out_of_time(); ++round) {
        bool improved = false;
        // Fan-out layouts are not fills of an order: only their layer split is polished. A swap
        // is judged with its own split polished too, as the current layout's already is: a fresh
        // split trails a polished one even where the swapped order is the better one.
        for (size_t i = 0; c.fan_depth == 0 && i + 1 < c.order.size() && c.order.size() <= 16 && !out_of_time(); ++i) {
            Candidate t = c;
            std::swap(t.order[i], t.order[i + 1]);
            t.cell_cluster = refill(t);
            if (t.cell_cluster.empty() || !realise(t, c.exact)) continue;
            polish_split(t);
            if (better(t.plan, c.plan)) {
                c = std::move(t);
                improved = true;
            }
        }
        if (!improved) break;
    }
}

// Describes where the plan lets traffic cross sites, from the cells themselves.
std::string orientation(const Candidate& c) {
    const Plan& p = c.plan;
    bool pp_across = false, dp_across = false;
    for (int s = 0; s < p.pp; ++s)
        for (int r = 0; r < p.dp; ++r) {
            if (s + 1 < p.pp && p.cell(s + 1, r).cluster != p.cell(s, r).cluster) pp_across = true;
            if (r > 0 && p.cell(s, r).cluster != p.cell(s, 0).cluster) dp_across = true;
        }
    if (pp_across && dp_across) return "pipelines and DP both cross sites (mixed)";
    if (pp_across) return "pipeline stages cross sites, DP stays inside each site";
    if (dp_across) return "pipelines stay inside sites, DP crosses hierarchically";
    return "one site";
}

PlanResult Search::run() {
    req_.job.validate();
    eligible_ = eligible_clusters(req_, topo_);
    inv_index_.assign(topo_.clusters.size(), -1);
    for (size_t i = 0; i < eligible_.size(); ++i) inv_index_[static_cast<size_t>(eligible_[i])] = static_cast<int>(i);
    int available = 0;
    for (int c : eligible_) available += topo_.clusters[static_cast<size_t>(c)].total_gpus();
    // Every candidate count is screened (screening is cheap): a subset that depended on the limit
    // would let a larger limit skip the count a smaller one finds, and more freedom plan worse.
    const std::vector<int> counts = candidate_gpu_counts(req_, available);

    // Screening: every shape of every count gets two cheap layouts (one per pure orientation)
    // from the best seed; the best shapes by that score get the full spin.
    struct Screened {
        Shape shape;
        double score;
        int seed;  // the seed its screening layouts came from (screen())
    };
    std::vector<Screened> screened;
    std::vector<Candidate> pool;
    size_t shapes_seen = 0;
    for (int n : counts) {
        std::vector<Shape> pruned;
        const std::vector<Shape> shapes = enumerate_shapes(req_, topo_, cost_, n, eligible_, &pruned);
        for (const Shape& s : pruned) memory_limited_.insert(s.key());
        for (const Shape& s : shapes) {
            ++shapes_seen;
            int seed = 0;
            std::vector<Candidate> got = screen(s, &seed);
            double best = std::numeric_limits<double>::infinity();
            for (Candidate& c : got) {
                best = std::min(best, score(c.plan));
                pool.push_back(std::move(c));
            }
            if (std::isfinite(best)) screened.push_back({s, best, seed});
            if (out_of_time()) break;
        }
        if (out_of_time()) break;
    }
    if (shapes_seen == 0) explain_no_shape(req_, topo_, cost_, eligible_, counts);
    if (screened.empty())
        throw InfeasibleError("no layout of " + req_.job.model.name + " on " + std::to_string(counts.front()) +
                              " GPUs passed the cost model" +
                              (!megatron_blocked_.empty() ? ": " + megatron_blocked_
                                                          : last_failure_.empty() ? "" : ": " + last_failure_));
    std::stable_sort(screened.begin(), screened.end(),
                     [](const Screened& a, const Screened& b) { return a.score < b.score; });

    for (size_t i = 0; i < screened.size() && i < static_cast<size_t>(opt_.max_shapes) && !out_of_time(); ++i) {
        std::vector<int> seeds;
        for (int k = 0; k < opt_.seed_clusters; ++k) seeds.push_back(k);
        if (screened[i].seed >= opt_.seed_clusters) seeds.push_back(screened[i].seed);
        for (Candidate& c : spin_shape(screened[i].shape, seeds, {})) pool.push_back(std::move(c));
    }

    // Beam: the best few layouts get the exact level 2 (CBC) and the local moves.
    std::stable_sort(pool.begin(), pool.end(), [&](const Candidate& a, const Candidate& b) {
        return score(a.plan) < score(b.plan);
    });
    // Distinct layouts: the same clusters per cell in another shape (another micro-batch, or pp
    // and dp swapped) is another layout, whose score before polish can trail the one it beats after.
    std::vector<Candidate> beam;
    std::set<std::tuple<int, int, int, int, std::vector<int>>> seen;
    std::map<std::tuple<int, int, int, int>, int> per_shape;
    for (Candidate& c : pool) {
        if (static_cast<int>(beam.size()) >= opt_.beam_width) break;
        const Shape& s = c.shape;
        if (per_shape[{s.tp, s.pp, s.dp, s.micro_batch}] >= opt_.beam_per_shape) continue;
        // A layout and its pipeline turned round are one beam entry: polish tries the other
        // direction (try_reversed), and the pair otherwise filled a shape's two places (worldwide-8,
        // gpt3-13b: the beam lost tp4 pp4 dp16, 13% slower).
        if (!seen.insert({s.tp, s.pp, s.dp, s.micro_batch, c.cell_cluster}).second) continue;
        if (c.fan_depth == 0) seen.insert({s.tp, s.pp, s.dp, s.micro_batch, spin::reverse_stages(c.cell_cluster, s.pp, s.dp)});
        ++per_shape[{s.tp, s.pp, s.dp, s.micro_batch}];
        beam.push_back(c);
    }
    for (Candidate& c : beam) {
        Candidate exact = c;
        if (!out_of_time() && realise(exact, true) && !better(c.plan, exact.plan)) c = std::move(exact);
        polish(c);
    }
    std::stable_sort(beam.begin(), beam.end(),
                     [&](const Candidate& a, const Candidate& b) { return better(a.plan, b.plan); });

    PlanResult result;
    const Candidate& win = beam.front();
    result.plan = win.plan;
    result.hit_limit = hit_limit_;
    result.memory_limited_shapes.emplace(memory_limited_.begin(), memory_limited_.end());
    // Runner-up: the best layout of another shape or orientation, to explain the choice.
    auto different = [&](const Candidate& c) { return !(c.shape == win.shape) || c.groups != win.groups; };
    for (const Candidate& c : beam)
        if (different(c)) {
            result.runner_up = c.plan;
            break;
        }
    if (!result.runner_up)
        for (const Candidate& c : pool)
            if (different(c) && c.plan.prediction.feasible) {
                result.runner_up = c.plan;
                break;
            }
    // The caller's model has the last word (and fills scaling efficiency).
    result.plan.prediction = cost_.estimate(result.plan);
    if (result.runner_up) result.runner_up->prediction = cost_.estimate(*result.runner_up);
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start_).count();
    result.plan.planning_ms = ms;
    if (result.runner_up) result.runner_up->planning_ms = ms;
    char note[320];
    std::snprintf(note, sizeof note,
                  "spinsearch: %s, %s; %zu shapes screened, %d searched, %d layouts scored; level-2 ILP solves %d "
                  "(%d not proven optimal)%s",
                  to_string(win.shape).c_str(),
                  orientation(win).c_str(),
                  shapes_seen, std::min(static_cast<int>(screened.size()), opt_.max_shapes), estimates_, ilp_solves_,
                  ilp_not_optimal_, hit_limit_ ? "; time limit cut the search short" : "");
    result.note = note;
    return result;
}

}  // namespace

PlanResult SpinSearch::plan(const PlanRequest& request, const CostModel& cost) const {
    Search search(request, cost, options_);
    return search.run();
}

std::unique_ptr<PlannerPolicy> make_spinsearch() { return std::make_unique<SpinSearch>(); }

}  // namespace spiderflow
