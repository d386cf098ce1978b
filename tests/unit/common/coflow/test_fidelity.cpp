// One job alone on the network: the flow-level simulator and the cost model (common/cost) must
// agree on its iteration time. They model the same things differently (a DAG of compute windows
// and flows with per-link max-min sharing vs. closed-form 1F1B terms), so they agree only when
// both count the same bytes on the same links at the same bandwidth. Plans on the shipped
// topologies, shaped like the ones `spiderflow plan` picks there.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/coflow/llm_traffic.h"
#include "common/coflow/schedulers.h"
#include "common/coflow/simulator.h"
#include "common/cost/cost_model.h"
#include "common/model/catalog.h"
#include "common/topology/reader.h"

using namespace spiderflow;
using namespace spiderflow::coflow;

namespace {

// Both models are fluid approximations with different pipeline schedules (GPipe in the
// simulator, 1F1B in the cost model) and the simulator leaves TP inside nodes out; on these
// plans they agree within 2%, and the issue asks 5%.
constexpr double kTolerance = 0.05;   // the agreement the federation simulator relies on

std::string shipped(const std::string& rel) {
    const char* dir = std::getenv("SF_SRCDIR");
    return std::string(dir && *dir ? dir : ".") + "/" + rel;
}

// Cells in the given cluster per (stage, replica), stage-major; nodes and GPUs handed out in
// order inside each cluster, tp GPUs per cell.
Plan place(const Topology& topo, const std::string& model, int tp, int pp, int dp, int micro_batches,
           std::vector<int> layers, const std::vector<std::string>& cluster_of_cell, int global_batch) {
    Plan p;
    p.job.model = *Catalog::builtin().model(model);
    p.job.seq_len = 2048;
    p.job.global_batch = global_batch;
    p.tp = tp;
    p.pp = pp;
    p.dp = dp;
    p.micro_batch = 1;
    p.num_micro_batches = micro_batches;
    p.layers_per_stage = std::move(layers);
    std::vector<int> next_gpu(topo.clusters.size(), 0);   // running GPU count per cluster
    for (const auto& name : cluster_of_cell) {
        const int c = topo.cluster_index(name);
        EXPECT_GE(c, 0) << name;
        const Cluster& cl = topo.clusters[static_cast<size_t>(c)];
        int g = next_gpu[static_cast<size_t>(c)], node = 0;
        while (g >= cl.nodes[static_cast<size_t>(node)].gpus) g -= cl.nodes[static_cast<size_t>(node++)].gpus;
        p.cells.push_back({c, node, g});
        next_gpu[static_cast<size_t>(c)] += tp;
    }
    return p;
}

struct Both {
    double predicted_s = 0;
    double simulated_s = 0;
};

Both compare(const Topology& topo, const Plan& p) {
    CostOptions o;
    o.scaling_efficiency = false;
    const Prediction pred = CostModel(topo, Catalog::builtin(), o).estimate(p);
    EXPECT_TRUE(pred.feasible) << pred.infeasible_reason;
    Workload w;
    w.jobs.push_back(build_llm_job(p, stage_times_on(p, topo, Catalog::builtin()), {"alone", 0, 2}));
    auto fair = make_scheduler("fair");
    const SimResult r = simulate(Network::from_topology(topo), w, *fair);
    EXPECT_EQ(r.jobs[0].iteration_end_s.size(), 2u);
    // The second iteration: the first has no previous DP to wait for.
    const auto& ends = r.jobs[0].iteration_end_s;
    const Both b{pred.iteration_s, ends.size() == 2 ? ends[1] - ends[0] : 0};
    std::printf("  predicted %.2f s, simulated %.2f s per iteration (x%.3f)\n", b.predicted_s, b.simulated_s,
                b.simulated_s / b.predicted_s);
    return b;
}

std::vector<std::string> repeat(const std::string& name, int n) { return std::vector<std::string>(n, name); }

std::vector<std::string> concat(std::vector<std::vector<std::string>> parts) {
    std::vector<std::string> out;
    for (auto& p : parts) out.insert(out.end(), p.begin(), p.end());
    return out;
}

}  // namespace

TEST(Fidelity, PipelineAcrossTheThinLink) {
    // llama2-7b, tp 2, pp 8, dp 4: stages 0-3 in site-a, 4-7 in site-b; the four replicas'
    // boundary 3|4 share the 0.5 Gbps link.
    const Topology topo = read_topology(shipped("contrib/topologies/two-sites-thin-link.json"));
    const Plan p = place(topo, "llama2-7b", 2, 8, 4, 64, {4, 4, 4, 4, 4, 4, 4, 4},
                         concat({repeat("site-a", 16), repeat("site-b", 16)}), 256);
    const Both b = compare(topo, p);
    EXPECT_GT(b.predicted_s, 50);   // WAN-bound: 64 micro-batches x 4 x 2 x 16 MiB at 0.5 Gbps
    EXPECT_NEAR(b.simulated_s / b.predicted_s, 1.0, kTolerance)
        << "simulated " << b.simulated_s << " s, predicted " << b.predicted_s << " s";
}

TEST(Fidelity, DataParallelAcrossTheThinLink) {
    // llama2-7b, tp 8, pp 1, dp 2: one replica per site; the gradient all-reduce crosses.
    const Topology topo = read_topology(shipped("contrib/topologies/two-sites-thin-link.json"));
    const Plan p = place(topo, "llama2-7b", 8, 1, 2, 16, {32}, {"site-a", "site-b"}, 32);
    const Both b = compare(topo, p);
    EXPECT_GT(b.predicted_s, 100);   // 13.5 GB of gradients each way at 0.5 Gbps
    EXPECT_NEAR(b.simulated_s / b.predicted_s, 1.0, kTolerance)
        << "simulated " << b.simulated_s << " s, predicted " << b.predicted_s << " s";
}

TEST(Fidelity, MixedLayoutWhoseRoutesShareALink) {
    // llama3-8b, tp 4, pp 4, dp 16 on worldwide-8 (the planner's pick for 256 GPUs): stage 0 in
    // london, stage 1 half in london and half in frankfurt, stages 2-3 in oregon. Both
    // london>oregon and frankfurt>oregon take the widest route via virginia and ohio, so all 16
    // crossings of boundary 1|2 share the ohio-oregon link, not 8 per cluster pair; and
    // frankfurt's half of stage 1 all-reduces with london's.
    const Topology topo = read_topology(shipped("contrib/topologies/worldwide-8.json"));
    const Plan p = place(topo, "llama3-8b", 4, 4, 16, 32, {3, 1, 15, 13},
                         concat({repeat("london", 16), repeat("london", 8), repeat("frankfurt", 8),
                                 repeat("oregon", 32)}),
                         512);
    const Both b = compare(topo, p);
    EXPECT_GT(b.predicted_s, 100);
    EXPECT_NEAR(b.simulated_s / b.predicted_s, 1.0, kTolerance)
        << "simulated " << b.simulated_s << " s, predicted " << b.predicted_s << " s";
}
