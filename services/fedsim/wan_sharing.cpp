#include "services/fedsim/wan_sharing.h"

#include <algorithm>
#include <chrono>
#include <numeric>
#include <set>

#include "common/coflow/llm_traffic.h"
#include "common/coflow/simulator.h"
#include "common/plan/plan_routes.h"

namespace spiderflow::fedsim {
namespace {

// Three iterations: the first has no previous all-reduce to wait for; the mean of the next two
// is the job's steady period.
constexpr int kIterations = 3;

int find_root(std::vector<int>& parent, int i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
}

}  // namespace

WanSharing::WanSharing(const Topology& topology, const Catalog& catalog, const std::string& scheduler)
    : topology_(topology), catalog_(catalog), net_(coflow::Network::from_topology(topology)),
      scheduler_(coflow::make_scheduler(scheduler)) {}

std::vector<int> WanSharing::links_of(const Plan& plan) const {
    std::set<int> clusters;
    for (const auto& c : plan.cells) clusters.insert(c.cluster);
    std::set<int> links;
    for (int a : clusters)
        for (int b : clusters)
            if (a < b)
                // The routes the plan's traffic takes (the one route rule, plan_routes.h).
                for (RouteKind kind : {pp_route(topology_, plan, a, b), dp_route_between(topology_, plan, a, b)})
                    for (int l : topology_.route_links(a, b, kind)) links.insert(l);
    return {links.begin(), links.end()};
}

double WanSharing::steady_period(const std::vector<RunningPlan>& group, std::vector<double>& periods) {
    const auto t0 = std::chrono::steady_clock::now();
    coflow::Workload w;
    for (const auto& r : group) {
        coflow::LlmJobOptions o;
        o.name = r.job;
        o.iterations = kIterations;
        o.topology = &topology_;   // pipeline and all-reduce flows on the routes the cost model prices
        w.jobs.push_back(coflow::build_llm_job(*r.plan, coflow::stage_times_on(*r.plan, topology_, catalog_), o));
    }
    const coflow::SimResult res = coflow::simulate(net_, w, *scheduler_);
    periods.assign(group.size(), 0);
    for (size_t k = 0; k < group.size() && k < res.jobs.size(); ++k) {
        const auto& ends = res.jobs[k].iteration_end_s;
        if (ends.size() >= 2) periods[k] = (ends.back() - ends.front()) / static_cast<double>(ends.size() - 1);
    }
    ++simulations_;
    wall_s_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return periods.empty() ? 0 : periods[0];
}

double WanSharing::period_alone(const RunningPlan& job) {
    auto it = alone_.find(job.job);
    if (it == alone_.end()) {
        std::vector<double> p;
        steady_period({job}, p);
        it = alone_.emplace(job.job, p.empty() ? 0 : p[0]).first;
    }
    return it->second;
}

std::map<std::string, double> WanSharing::slowdowns(const std::vector<RunningPlan>& running) {
    std::map<std::string, double> out;
    // Jobs that share a WAN link fall in one group (union-find over the links they use).
    const size_t n = running.size();
    std::vector<int> parent(n);
    std::iota(parent.begin(), parent.end(), 0);
    std::map<int, int> link_owner;
    std::vector<bool> crosses(n, false);
    for (size_t i = 0; i < n; ++i) {
        out[running[i].job] = 1;
        for (int l : links_of(*running[i].plan)) {
            crosses[i] = true;
            auto [it, fresh] = link_owner.emplace(l, static_cast<int>(i));
            if (!fresh) parent[find_root(parent, static_cast<int>(i))] = find_root(parent, it->second);
        }
    }
    std::map<int, std::vector<size_t>> groups;
    for (size_t i = 0; i < n; ++i)
        if (crosses[i]) groups[find_root(parent, static_cast<int>(i))].push_back(i);
    for (auto& [root, members] : groups) {
        if (members.size() < 2) continue;
        std::sort(members.begin(), members.end(), [&](size_t a, size_t b) { return running[a].job < running[b].job; });
        std::vector<RunningPlan> group;
        std::string key;
        for (size_t i : members) {
            group.push_back(running[i]);
            key += running[i].job + "\n";
        }
        auto it = groups_.find(key);
        if (it == groups_.end()) {
            std::vector<double> periods;
            steady_period(group, periods);
            it = groups_.emplace(key, periods).first;
        }
        // What sharing adds is added to the cost model's iteration time: the flow simulator
        // leaves compute-side costs out (TP, the optimizer step) and overlaps p2p with compute,
        // so its absolute period differs from the cost model's (doc/simulate.md, "Fidelity"),
        // while the difference between shared and alone is what it models.
        for (size_t k = 0; k < group.size(); ++k) {
            const double alone = period_alone(group[k]);
            const double predicted = group[k].plan->prediction.iteration_s;
            if (alone > 0 && it->second[k] > 0 && predicted > 0)
                out[group[k].job] = std::max(1.0, (predicted + it->second[k] - alone) / predicted);
        }
    }
    return out;
}

}  // namespace spiderflow::fedsim
