// The clusters, options and requests the submit decision's tests share: "here", a cluster of
// 8-GPU H100 nodes on two leaf switches, and "there", its federation peer over a WAN link.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "common/site/site_state.h"
#include "common/topology/topology.h"
#include "services/slurmjob/submit_planner.h"
#include "services/slurmjob/submit_site.h"

namespace spiderflow::slurmjob::testing {

inline std::shared_ptr<Topology> cluster_topology(int nodes, const char* gpu_type = "H100-SXM") {
    auto t = std::make_shared<Topology>();
    Cluster c;
    c.name = "here";
    c.intra_bandwidth_Bps = 50e9;
    c.intra_latency_s = 5e-6;
    for (int i = 0; i < nodes; ++i) {
        Node n;
        n.name = "n" + std::to_string(i);
        n.gpus = 8;
        n.gpu_type = gpu_type;
        n.nvlink_domain_size = 8;
        n.nics = {{"mlx5_0", "ib", 50e9, 0}};
        n.leaf_switch = i % 2 ? "s2" : "s1";
        c.nodes.push_back(n);
    }
    c.switches = {Switch{"s1", {}, {}, 0}, Switch{"s2", {}, {}, 0}};
    t->clusters.push_back(c);
    t->finalize("test");
    return t;
}

inline std::shared_ptr<const SubmitSite> site_of(std::shared_ptr<const Topology> t) {
    return make_submit_site(std::make_shared<const SiteState>(std::move(t)), false);
}

inline std::shared_ptr<const SubmitSite> cluster(int nodes, const char* gpu_type = "H100-SXM") {
    return site_of(cluster_topology(nodes, gpu_type));
}

inline SpiderflowConf config(const std::string& dir) {
    SpiderflowConf c;
    c.state_dir = dir;
    c.time_budget_s = 10;
    return c;
}

inline JobOptions opts(const char* model, int batch) {
    JobOptions o;
    o.model = model;
    o.global_batch = batch;
    return o;
}

inline SlurmRequest gpus(std::optional<int> n) {
    SlurmRequest r;
    r.gpus = n;
    if (n) r.gpus_text = "--gpus=" + std::to_string(*n);
    return r;
}

// Clusters "here" and "there" of 8-GPU nodes, joined by a 10 Gbit/s, 20 ms WAN.
inline std::shared_ptr<Topology> two_clusters(int here_nodes, int there_nodes) {
    auto two = cluster_topology(here_nodes);
    Cluster there = cluster_topology(there_nodes)->clusters[0];
    there.name = "there";
    two->clusters.push_back(there);
    two->links.push_back({0, 1, 10e9 / 8, 0.02});
    two->finalize("test");
    return two;
}

// "here" (2 nodes) and "there" (4 nodes, one busy).
inline std::shared_ptr<const SubmitSite> federation(bool observed) {
    const auto two = two_clusters(2, 4);
    SiteState state(two);
    state.allocate("b-job", {{{"there", "n0"}, 8, 0}}, 0);
    return make_submit_site(std::make_shared<const SiteState>(observed ? state : SiteState(two)), observed);
}

}  // namespace spiderflow::slurmjob::testing
