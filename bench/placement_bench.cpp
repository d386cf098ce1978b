// How much closer planned jobs land with select/spiderflow_cons_tres than with cons_tres alone,
// under the same random background load: leaf switches spanned and pipeline stages split across
// leaf switches, per job, averaged over many loads, in one run.
//
// cons_tres alone is modelled as its _eval_nodes() does without topology-aware selection
// (TopologyParam=TopoOptional, or no topology plugin): it groups free nodes into runs of
// consecutive node indices, takes the smallest run that suffices (else the largest, and again),
// and fills a run from its first node. The integration test (tests/integration/
// test_select_sched.sh) checks this model against a real slurmctld on its 8-node case (n[4-7]).
// Ours is node_pick(), the code select/spiderflow_cons_tres runs.
//
// And what each placement costs the job: the cost model's predicted iteration time for llama3-70b
// (tp 8, one pipeline stage per run of nodes, ranks in leaf-switch order as a SpiderFlow step
// numbers them) on the same nodes, with leaf uplinks tapered TAPER:1 (default 2: half the NIC
// bandwidth under them; the spines non-blocking). The job is priced alone: what background jobs
// send over the same uplinks is not modelled. On a non-blocking fabric the model prices every placement
// alike, so only a tapered one shows what grouping buys.
//
// Also the time one pick takes (what select/spiderflow_cons_tres adds to a planned start, besides
// reading slurmctld's records), mean over the loads.
//
// Usage: bench/placement_bench [TRIALS] [TAPER]   (default 500 per row, 2; fixed seeds, same loads)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "common/cost/cost_model.h"
#include "common/model/catalog.h"
#include "common/plan/sequential_layout.h"
#include "common/site/node_pick.h"
#include "common/util/units.h"

using namespace spiderflow;

namespace {

constexpr double kNodeGbps = 8 * 400;  // eight 400 Gb/s NICs, as an H100 node
double g_taper = 2;                    // leaf uplink = what its nodes' NICs could send / taper

// NODES nodes, LEAF per leaf switch, 4 leaves per spine, one core. interleave: leaf i holds
// nodes i, i + leaves, ... (switch grouping that disagrees with name order, as when nodes are
// named by rack position but cabled otherwise).
Topology make_cluster(int nodes, int leaf, bool interleave) {
    Topology t;
    t.name = "bench";
    Cluster c;
    c.name = "c";
    c.intra_bandwidth_Bps = units::gbps_to_Bps(kNodeGbps);
    c.intra_latency_s = 5e-6;
    const int leaves = nodes / leaf;
    for (int i = 0; i < nodes; ++i) {
        Node n;
        n.name = "n" + std::to_string(i);
        n.gpu_type = "H100-SXM";
        n.gpus = 8;
        n.leaf_switch = "l" + std::to_string(interleave ? i % leaves : i / leaf);
        c.nodes.push_back(n);
    }
    for (int l = 0; l < leaves; ++l) {
        Switch sw{"l" + std::to_string(l), {}, {}, units::gbps_to_Bps(leaf * kNodeGbps / g_taper)};
        for (const auto& n : c.nodes)
            if (n.leaf_switch == sw.name) sw.nodes.push_back(n.name);
        c.switches.push_back(sw);
    }
    Switch core{"core", {}, {}, 0};
    for (int s = 0; s * 4 < leaves; ++s) {
        Switch spine{"s" + std::to_string(s), {}, {}, 0};
        for (int l = s * 4; l < std::min(leaves, s * 4 + 4); ++l) spine.switches.push_back("l" + std::to_string(l));
        core.switches.push_back(spine.name);
        c.switches.push_back(spine);
    }
    c.switches.push_back(core);
    t.clusters.push_back(c);
    t.finalize("bench");
    return t;
}

// cons_tres's consecutive best fit (see the header).
std::vector<int> cons_tres_alone(const std::vector<bool>& free, int want) {
    std::vector<std::pair<int, int>> runs;  // start, length
    for (int i = 0; i < static_cast<int>(free.size());) {
        if (!free[i]) { ++i; continue; }
        int j = i;
        while (j < static_cast<int>(free.size()) && free[j]) ++j;
        runs.push_back({i, j - i});
        i = j;
    }
    std::vector<int> out;
    std::vector<bool> used(runs.size(), false);
    while (static_cast<int>(out.size()) < want) {
        const int rem = want - static_cast<int>(out.size());
        int best = -1;
        for (int r = 0; r < static_cast<int>(runs.size()); ++r) {
            if (used[r]) continue;
            if (best < 0) { best = r; continue; }
            const bool s = runs[r].second >= rem, bs = runs[best].second >= rem;
            if ((s && !bs) || (s && runs[r].second < runs[best].second) || (!s && !bs && runs[r].second > runs[best].second)) best = r;
        }
        if (best < 0) return {};
        used[best] = true;
        for (int k = 0; k < runs[best].second && static_cast<int>(out.size()) < want; ++k) out.push_back(runs[best].first + k);
    }
    return out;
}

// llama3-70b on `nodes` (any order), one cell per node, stage s on the s-th run of nodes in the
// cluster's leaf-switch order: the iteration time the cost model predicts for that placement.
double predicted_iteration_s(const Topology& t, const CostModel& cm, const std::vector<int>& nodes, int stages) {
    const Catalog& cat = Catalog::builtin();
    JobSpec job;
    job.model = *cat.model("llama3-70b");
    job.seq_len = 4096;
    job.recompute = Recompute::full;
    const int dp = static_cast<int>(nodes.size()) / stages;
    job.global_batch = 16 * dp;
    const Cluster& c = t.clusters[0];
    std::vector<int> pos(c.nodes.size());
    for (size_t k = 0; k < c.node_order().size(); ++k) pos[static_cast<size_t>(c.node_order()[k])] = static_cast<int>(k);
    std::vector<int> ranked = nodes;
    std::sort(ranked.begin(), ranked.end(), [&](int a, int b) { return pos[static_cast<size_t>(a)] < pos[static_cast<size_t>(b)]; });
    Plan plan = make_sequential_plan(t, job, 8, stages, dp, 1);
    for (int s = 0; s < stages; ++s)
        for (int r = 0; r < dp; ++r) plan.cell(s, r) = StageCell{0, ranked[static_cast<size_t>(s * dp + r)], 0};
    const Prediction p = cm.estimate(plan);
    return p.feasible ? p.iteration_s : NAN;
}

struct Row {
    const char* name;
    int nodes, leaf;
    bool interleave;
    int job_nodes, stages;
    double load;
};

}  // namespace

int main(int argc, char** argv) {
    const int trials = argc > 1 ? std::atoi(argv[1]) : 500;
    if (argc > 2) g_taper = std::atof(argv[2]);
    if (trials < 1 || !(g_taper >= 1)) {
        std::fprintf(stderr, "usage: placement_bench [TRIALS >= 1] [TAPER >= 1]\n");
        return 2;
    }
    const std::vector<Row> rows = {
        {"64 nodes, 8/leaf, 25% busy", 64, 8, false, 16, 4, 0.25},
        {"64 nodes, 8/leaf, 50% busy", 64, 8, false, 16, 4, 0.50},
        {"64 nodes, 4/leaf, 50% busy", 64, 4, false, 8, 4, 0.50},
        {"64 nodes, 8/leaf, interleaved names, 25% busy", 64, 8, true, 16, 4, 0.25},
        {"256 nodes, 16/leaf, 50% busy", 256, 16, false, 64, 8, 0.50},
        {"2048 nodes, 32/leaf, 50% busy", 2048, 32, false, 256, 16, 0.50},
    };
    std::printf("Planned jobs under random background load: select/spiderflow_cons_tres vs cons_tres alone\n");
    std::printf("(%d loads per row; leaf switches spanned, stages split across leaves and the cost model's\n"
                " iteration time for llama3-70b on the chosen nodes with %.0f:1 tapered leaf uplinks, means)\n\n",
                trials, g_taper);
    std::printf("%-48s %-10s %16s %12s %7s %15s %10s %13s %9s %7s %9s\n", "cluster and load", "job", "leaves cons_tres",
                "leaves ours", "ratio", "split cons_tres", "split ours", "s/it cons_tres", "s/it ours", "ratio", "pick us");
    for (const Row& row : rows) {
        const Topology t = make_cluster(row.nodes, row.leaf, row.interleave);
        const Cluster& c = t.clusters[0];
        CostOptions options;
        options.scaling_efficiency = false;  // one cluster: nothing to compare with
        const CostModel cm(t, Catalog::builtin(), options);
        std::mt19937 rng(12345);
        double leaves_base = 0, leaves_ours = 0, split_base = 0, split_ours = 0, pick_us = 0, iter_base = 0, iter_ours = 0;
        int counted = 0;
        for (int trial = 0; trial < trials; ++trial) {
            std::vector<int> order(row.nodes);
            std::iota(order.begin(), order.end(), 0);
            std::shuffle(order.begin(), order.end(), rng);
            std::vector<bool> free(row.nodes, true);
            for (int k = 0; k < static_cast<int>(row.load * row.nodes); ++k) free[order[k]] = false;
            std::vector<int> gpus(row.nodes);
            for (int i = 0; i < row.nodes; ++i) gpus[i] = free[i] ? 8 : 0;
            const auto base = cons_tres_alone(free, row.job_nodes);
            const auto t0 = std::chrono::steady_clock::now();
            const auto ours = pick_nodes(c, gpus, {}, PickRequest{row.job_nodes, 8, row.stages});
            pick_us += std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
            if (base.empty() || !ours) continue;
            const NodePick b = describe_pick(c, base, row.stages);
            leaves_base += b.leaf_switches;
            split_base += b.split_stages;
            leaves_ours += ours->leaf_switches;
            split_ours += ours->split_stages;
            iter_base += predicted_iteration_s(t, cm, base, row.stages);
            iter_ours += predicted_iteration_s(t, cm, ours->nodes, row.stages);
            ++counted;
        }
        if (counted == 0) continue;
        char job[32];
        std::snprintf(job, sizeof job, "%dn/%dpp", row.job_nodes, row.stages);
        std::printf("%-48s %-10s %16.2f %12.2f %6.2fx %15.2f %10.2f %13.3f %9.3f %6.3fx %9.1f\n", row.name, job,
                    leaves_base / counted, leaves_ours / counted, leaves_base / leaves_ours, split_base / counted,
                    split_ours / counted, iter_base / counted, iter_ours / counted, iter_base / iter_ours, pick_us / trials);
    }
    // The integration test's case, as the real slurmctld placed it: n[4-7] alone, n[5-8] ours.
    std::vector<bool> free(8, true);
    free[0] = free[2] = false;
    const auto base = cons_tres_alone(free, 4);
    std::printf("\nmodel check (8 nodes, n1 and n3 busy): cons_tres alone takes n%d-n%d (slurmctld took n[4-7])\n",
                base.front() + 1, base.back() + 1);
    return 0;
}
