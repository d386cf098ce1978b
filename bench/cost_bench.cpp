// Cost model speed: microseconds per CostModel::estimate for growing plans (pp*dp cells), with
// and without the one-site re-estimate behind scaling_efficiency. Not a test: prints figures.
#include <chrono>
#include <cstdio>
#include <string>

#include "common/cost/cost_model.h"
#include "common/plan/sequential_layout.h"
#include "common/util/units.h"

using namespace spiderflow;

namespace {
Topology federation(int clusters, int nodes) {
    Topology t;
    t.name = "bench";
    for (int c = 0; c < clusters; ++c) {
        Cluster cl;
        cl.name = "c" + std::to_string(c);
        cl.intra_bandwidth_Bps = units::gbps_to_Bps(1600);
        cl.intra_latency_s = 5e-6;
        for (int n = 0; n < nodes; ++n) {
            Node node;
            node.name = cl.name + "n" + std::to_string(n);
            node.gpu_type = c % 2 ? "H100-SXM" : "A100-80GB";
            node.gpus = 8;
            cl.nodes.push_back(node);
        }
        t.clusters.push_back(cl);
        if (c > 0) t.links.push_back({c - 1, c, units::gbps_to_Bps(100), 0.01 * c});
    }
    t.finalize("bench");
    return t;
}
}  // namespace

int main() {
    const JobSpec job = [] {
        JobSpec j;
        j.model = *Catalog::builtin().model("llama3-70b");
        j.global_batch = 4096;
        j.seq_len = 4096;
        j.recompute = Recompute::full;
        return j;
    }();
    std::printf("%8s %8s %8s %14s %14s\n", "clusters", "pp", "dp", "us/estimate", "us (+scaling)");
    for (const auto& [clusters, pp, dp] : {std::tuple{2, 4, 8}, std::tuple{4, 8, 16}, std::tuple{8, 16, 32},
                                           std::tuple{16, 16, 64}}) {
        const Topology t = federation(clusters, 64);
        const Plan plan = make_sequential_plan(t, job, 8, pp, dp, 1);
        double us[2];
        for (int se = 0; se < 2; ++se) {
            CostOptions o;
            o.scaling_efficiency = se == 1;
            const CostModel cm(t, Catalog::builtin(), o);
            const int n = 2000;
            double sink = 0;
            const auto t0 = std::chrono::steady_clock::now();
            for (int i = 0; i < n; ++i) sink += cm.estimate(plan).iteration_s;
            us[se] = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / n;
            if (sink <= 0) std::printf("spiderflow: unexpected zero estimate\n");
        }
        std::printf("%8d %8d %8d %14.1f %14.1f\n", clusters, pp, dp, us[0], us[1]);
    }
    return 0;
}
