// Small federations built in code, so planner tests do not depend on topology files.
#pragma once

#include <string>
#include <vector>

#include "common/model/catalog.h"
#include "common/planner/planner.h"
#include "common/topology/topology.h"
#include "common/util/errors.h"
#include "common/util/units.h"

namespace sftest {

using namespace spiderflow;

inline Cluster make_cluster(const std::string& name, const std::vector<std::pair<std::string, int>>& node_types,
                            int gpus_per_node = 8) {
    Cluster c;
    c.name = name;
    c.region = name;
    c.intra_bandwidth_Bps = units::gbps_to_Bps(400);
    c.intra_latency_s = units::us_to_s(5);
    int i = 0;
    for (const auto& [type, count] : node_types)
        for (int k = 0; k < count; ++k) {
            Node n;
            n.name = name + "-n" + std::to_string(i++);
            n.gpu_type = type;
            n.gpus = gpus_per_node;
            n.nvlink_domain_size = gpus_per_node;
            c.nodes.push_back(n);
        }
    return c;
}

inline void link(Topology& t, int a, int b, double gbps, double ms) {
    t.links.push_back(Link{a, b, units::gbps_to_Bps(gbps), units::ms_to_s(ms)});
}

// Two 32-GPU A100-80GB clusters joined by one thin WAN link.
inline Topology two_sites(double wan_gbps = 10) {
    Topology t;
    t.name = "two-sites";
    t.clusters.push_back(make_cluster("east", {{"A100-80GB", 4}}));
    t.clusters.push_back(make_cluster("west", {{"A100-80GB", 4}}));
    link(t, 0, 1, wan_gbps, 30);
    t.finalize("two-sites");
    return t;
}

inline PlanRequest request(const std::string& model, int global_batch, int gpus, int seq_len = 2048) {
    PlanRequest r;
    const ModelArch* m = Catalog::builtin().model(model);
    if (m) r.job.model = *m;
    r.job.seq_len = seq_len;
    r.job.global_batch = global_batch;
    r.job.gpus = gpus;
    r.job.gpu_mode = GpuCountMode::exact;
    return r;
}

}  // namespace sftest
