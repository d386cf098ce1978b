#include "common/planner/baselines/genetic/genetic.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <numeric>

#include "common/planner/baselines/common/evaluator.h"
#include "common/planner/baselines/common/portable_random.h"

namespace spiderflow {
namespace {

struct Individual {
    int shape = 0;
    std::vector<int> cells;  // topology cluster per (stage * dp + replica)
    double score = std::numeric_limits<double>::infinity();
};

class Search {
public:
    Search(baselines::Evaluator& eval, baselines::BestKeeper& keeper, const GeneticOptions& opt,
           std::vector<Shape> shapes, uint64_t seed)
        : eval_(eval), keeper_(keeper), opt_(opt), shapes_(std::move(shapes)), rng_(seed) {}

    int run();  // returns offspring evaluated

private:
    int pick(int n) { return rng_.below(n); }
    double coin() { return rng_.uniform01(); }
    const std::vector<int>& clusters(int tp) {
        auto it = clusters_.find(tp);
        if (it == clusters_.end()) it = clusters_.emplace(tp, eval_.clusters_by_compute(tp)).first;
        return it->second;
    }
    Individual random_individual(int shape);
    bool repair(Individual& ind);
    void evaluate(Individual& ind);
    Individual crossover(const Individual& a, const Individual& b);
    void mutate(Individual& ind);
    void local_search(Individual& ind);
    const Individual& tournament(const std::vector<Individual>& pop);

    baselines::Evaluator& eval_;
    baselines::BestKeeper& keeper_;
    GeneticOptions opt_;
    std::vector<Shape> shapes_;
    baselines::PortableRandom rng_;
    std::map<int, std::vector<int>> clusters_;
};

// A random cluster order filled in a random orientation: stage-major (DP local, pipelines
// across) or replica-major (pipelines local, DP across).
Individual Search::random_individual(int shape) {
    const Shape& s = shapes_[static_cast<size_t>(shape)];
    Individual ind;
    ind.shape = shape;
    std::vector<int> order = clusters(s.tp);
    rng_.shuffle(order);
    const bool stage_major = coin() < 0.5;
    ind.cells.assign(static_cast<size_t>(s.pp) * s.dp, -1);
    size_t k = 0;
    int used = 0;
    for (int i = 0; i < s.pp * s.dp; ++i) {
        while (k < order.size() && used >= eval_.slots_of(s.tp, order[k])) {
            ++k;
            used = 0;
        }
        if (k >= order.size()) break;
        const int stage = stage_major ? i / s.dp : i % s.pp;
        const int replica = stage_major ? i % s.dp : i / s.pp;
        ind.cells[static_cast<size_t>(stage) * s.dp + replica] = order[k];
        ++used;
    }
    return ind;
}

// Moves cells out of over-full clusters (and fills unassigned ones) into clusters with room,
// preferring a cluster the same stage already uses, then the one with most room.
bool Search::repair(Individual& ind) {
    const Shape& s = shapes_[static_cast<size_t>(ind.shape)];
    const std::vector<int>& cl = clusters(s.tp);
    std::map<int, int> room;
    for (int c : cl) room[c] = eval_.slots_of(s.tp, c);
    std::vector<size_t> homeless;
    for (size_t i = 0; i < ind.cells.size(); ++i) {
        const int c = ind.cells[i];
        auto it = c >= 0 ? room.find(c) : room.end();
        if (it == room.end() || it->second == 0) {
            homeless.push_back(i);
            continue;
        }
        --it->second;
    }
    for (size_t i : homeless) {
        const int stage = static_cast<int>(i) / s.dp;
        int target = -1;
        for (int r = 0; r < s.dp && target < 0; ++r) {
            const int c = ind.cells[static_cast<size_t>(stage) * s.dp + r];
            if (static_cast<size_t>(stage) * s.dp + r != i && c >= 0 && room.count(c) && room[c] > 0) target = c;
        }
        if (target < 0) {
            int most = 0;
            for (int c : cl)
                if (room[c] > most) {
                    most = room[c];
                    target = c;
                }
        }
        if (target < 0) return false;
        ind.cells[i] = target;
        --room[target];
    }
    return true;
}

void Search::evaluate(Individual& ind) {
    const Plan p = eval_.realise(shapes_[static_cast<size_t>(ind.shape)], ind.cells);
    ind.score = eval_.score(p);
    keeper_.offer(p, baselines::layout_key(p));
}

// Same shape: whole pipelines (replica-wise) or whole stages (stage-wise) from either parent.
Individual Search::crossover(const Individual& a, const Individual& b) {
    Individual child = a;
    if (a.shape != b.shape) return child;
    const Shape& s = shapes_[static_cast<size_t>(a.shape)];
    const bool by_replica = coin() < 0.5;
    if (by_replica) {
        for (int r = 0; r < s.dp; ++r)
            if (coin() < 0.5)
                for (int st = 0; st < s.pp; ++st) child.cells[static_cast<size_t>(st) * s.dp + r] = b.cells[static_cast<size_t>(st) * s.dp + r];
    } else {
        for (int st = 0; st < s.pp; ++st)
            if (coin() < 0.5)
                for (int r = 0; r < s.dp; ++r) child.cells[static_cast<size_t>(st) * s.dp + r] = b.cells[static_cast<size_t>(st) * s.dp + r];
    }
    return child;
}

void Search::mutate(Individual& ind) {
    // Now and then jump to another shape with a fresh assignment: shapes are genes too.
    if (shapes_.size() > 1 && coin() < 0.1) {
        ind = random_individual(pick(static_cast<int>(shapes_.size())));
        return;
    }
    const Shape& s = shapes_[static_cast<size_t>(ind.shape)];
    const std::vector<int>& cl = clusters(s.tp);
    for (int& c : ind.cells)
        if (coin() < opt_.mutation_rate) c = cl[static_cast<size_t>(pick(static_cast<int>(cl.size())))];
}

// DTFM's local search: swap the clusters of two cells; keep the swap when it helps.
void Search::local_search(Individual& ind) {
    for (int m = 0; m < opt_.local_search_moves && ind.cells.size() > 1; ++m) {
        Individual trial = ind;
        const size_t i = static_cast<size_t>(pick(static_cast<int>(ind.cells.size())));
        const size_t j = static_cast<size_t>(pick(static_cast<int>(ind.cells.size())));
        if (trial.cells[i] == trial.cells[j]) continue;
        std::swap(trial.cells[i], trial.cells[j]);
        evaluate(trial);
        if (trial.score < ind.score) ind = std::move(trial);
    }
}

const Individual& Search::tournament(const std::vector<Individual>& pop) {
    const Individual* best = &pop[static_cast<size_t>(pick(static_cast<int>(pop.size())))];
    for (int t = 1; t < opt_.tournament; ++t) {
        const Individual& o = pop[static_cast<size_t>(pick(static_cast<int>(pop.size())))];
        if (o.score < best->score) best = &o;
    }
    return *best;
}

int Search::run() {
    std::vector<Individual> pop;
    const int n_shapes = static_cast<int>(shapes_.size());
    for (int i = 0; i < opt_.population && !eval_.out_of_time(); ++i) {
        // Every shape gets a seat before any gets two (round robin).
        Individual ind = random_individual(i % n_shapes);
        if (!repair(ind)) continue;
        evaluate(ind);
        pop.push_back(std::move(ind));
    }
    if (pop.empty()) return 0;
    int trials = 0;
    for (; trials < opt_.trials && !eval_.out_of_time(); ++trials) {
        const Individual& a = tournament(pop);
        // The second parent from the same shape when the population has one.
        const Individual* b = &tournament(pop);
        for (int tries = 0; tries < 4 && b->shape != a.shape; ++tries) b = &tournament(pop);
        Individual child = crossover(a, *b);
        mutate(child);
        if (!repair(child)) continue;
        evaluate(child);
        local_search(child);
        auto worst = std::max_element(pop.begin(), pop.end(),
                                      [](const Individual& x, const Individual& y) { return x.score < y.score; });
        if (child.score < worst->score) *worst = std::move(child);
    }
    return trials;
}

}  // namespace

PlanResult GeneticPolicy::plan(const PlanRequest& request, const CostModel& cost) const {
    baselines::Evaluator eval(request, cost, name(), 600.0);
    baselines::BestKeeper keeper(eval);
    std::vector<Shape> shapes = eval.shapes();
    // More shapes than seats: an even spread, so the population covers the space.
    if (static_cast<int>(shapes.size()) > options_.population) {
        std::vector<Shape> keep;
        for (int i = 0; i < options_.population; ++i)
            keep.push_back(shapes[static_cast<size_t>(i) * shapes.size() / static_cast<size_t>(options_.population)]);
        shapes = keep;
    }
    Search search(eval, keeper, options_, shapes, request.seed);
    const int trials = search.run();
    char note[200];
    std::snprintf(note, sizeof note, "genetic: population %d, %d of %d trials, %d layouts scored", options_.population,
                  trials, options_.trials, eval.evaluations());
    return keeper.result(eval, note);
}

std::unique_ptr<PlannerPolicy> make_genetic() { return std::make_unique<GeneticPolicy>(); }

}  // namespace spiderflow
