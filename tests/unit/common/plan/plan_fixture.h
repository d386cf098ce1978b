// A small hand-built topology and plan shared by the plan tests.
#pragma once

#include "common/plan/plan.h"
#include "common/topology/topology.h"
#include "common/util/units.h"
#include "tests/unit/common/small_model.h"

namespace spiderflow::test {

// Two clusters of two 8-GPU nodes each, joined by a thin 10 Gbps link.
inline Topology two_sites() {
    Topology t;
    t.name = "two-sites";
    for (const char* cname : {"east", "west"}) {
        Cluster c;
        c.name = cname;
        c.region = cname;
        c.intra_bandwidth_Bps = units::gbps_to_Bps(200);
        c.intra_latency_s = 5e-6;
        for (int n = 0; n < 2; ++n) {
            Node node;
            node.name = std::string(cname) + "-n" + std::to_string(n);
            node.gpu_type = "A100-80GB";
            node.gpus = 8;
            node.nvlink_domain_size = 8;
            c.nodes.push_back(node);
        }
        t.clusters.push_back(c);
    }
    t.links.push_back(Link{0, 1, units::gbps_to_Bps(10), 0.030});
    t.finalize("two-sites");
    return t;
}

inline ModelArch small_model() { return dense_model("test-1b", 8, 2048, 16, 8192, 32000); }

// tp=4, pp=2, dp=4: stage 0 in east, stage 1 in west (pipelines cross, DP inside).
inline Plan cross_plan() {
    Plan p;
    p.job.model = small_model();
    p.job.seq_len = 2048;
    p.job.global_batch = 64;
    p.job.gpus = 32;
    p.tp = 4;
    p.pp = 2;
    p.dp = 4;
    p.micro_batch = 2;
    p.num_micro_batches = 8;
    p.layers_per_stage = {4, 4};
    p.cells.resize(8);
    for (int s = 0; s < 2; ++s)
        for (int r = 0; r < 4; ++r) p.cell(s, r) = StageCell{s, r / 2, (r % 2) * 4};
    p.policy = "test";
    p.planning_ms = 12.5;
    p.prediction.iteration_s = 1.25;
    p.prediction.compute_s = 0.9;
    p.prediction.pp_comm_s = 0.2;
    p.prediction.dp_comm_s = 0.1;
    p.prediction.bubble_s = 0.05;
    p.prediction.tokens_per_s = 64 * 2048 / 1.25;
    p.prediction.mfu = 0.41;
    p.prediction.max_memory_bytes = 30e9;
    p.prediction.stage_memory_bytes = {30e9, 28e9};
    p.prediction.scaling_efficiency = 0.93;
    return p;
}

// A DiLoCo plan (H 200, int8 pseudo-gradients) on two_sites(): tp 8, pp 1, dp 4; replicas 0, 1 in
// east, 2, 3 in west, one per node.
inline Plan diloco_plan() {
    Plan p;
    p.job.model = small_model();
    p.job.seq_len = 2048;
    p.job.global_batch = 64;
    p.job.gpus = 32;
    p.job.sync.mode = SyncMode::diloco;
    p.job.sync.inner_steps = 200;
    p.job.sync.outer_precision = OuterPrecision::int8;
    p.tp = 8;
    p.pp = 1;
    p.dp = 4;
    p.micro_batch = 2;
    p.num_micro_batches = 8;
    p.layers_per_stage = {8};
    for (int r = 0; r < 4; ++r) p.cells.push_back(StageCell{r / 2, r % 2, 0});
    p.policy = "test";
    p.prediction.iteration_s = 2.0;
    p.prediction.tokens_per_s = 65536;
    p.prediction.outer_allreduce_s = 30;
    p.prediction.outer_exposed_s = 30;
    p.prediction.outer_wan_bytes = 4e9;
    p.prediction.compute_utilisation = 0.925;
    return p;
}

}  // namespace spiderflow::test
