// Topologies and jobs built in code for the cost tests.
#pragma once

#include <string>
#include <vector>

#include "common/model/catalog.h"
#include "common/model/job_spec.h"
#include "common/topology/topology.h"
#include "common/util/units.h"

namespace sftest {

struct ClusterSpec {
    std::string name;
    std::string gpu = "A100-80GB";
    int nodes = 4;
    int gpus_per_node = 8;
    double nic_gbps_per_node = 8 * 200;  // DGX A100: eight 200 Gb/s HDR compute NICs
    double intra_latency_s = 5e-6;
};

struct LinkSpec {
    int a, b;
    double gbps;
    double latency_ms;
};

inline spiderflow::Topology make_topology(const std::vector<ClusterSpec>& clusters, const std::vector<LinkSpec>& links = {}) {
    using namespace spiderflow;
    Topology t;
    t.name = "test";
    for (const auto& cs : clusters) {
        Cluster c;
        c.name = cs.name;
        c.region = cs.name;
        c.intra_latency_s = cs.intra_latency_s;
        c.intra_bandwidth_Bps = units::gbps_to_Bps(cs.nic_gbps_per_node);
        for (int n = 0; n < cs.nodes; ++n) {
            Node node;
            node.name = cs.name + "-n" + std::to_string(n);
            node.gpu_type = cs.gpu;
            node.gpus = cs.gpus_per_node;
            node.nvlink_domain_size = cs.gpus_per_node;
            node.nics.push_back(Nic{"ib0", "ib", units::gbps_to_Bps(cs.nic_gbps_per_node), -1});
            c.nodes.push_back(node);
        }
        t.clusters.push_back(c);
    }
    for (const auto& l : links) {
        t.links.push_back(Link{l.a, l.b, units::gbps_to_Bps(l.gbps), units::ms_to_s(l.latency_ms)});
    }
    t.finalize("test");
    return t;
}

// A GPT as Megatron-LM builds it (Narayanan et al. SC'21: vocabulary 51200, FFN 4h, tied).
// Clusters a and b (H100, `nodes` nodes each; c has one) joined directly (1.0 Gb/s, 24 ms) and
// through c (1.1 Gb/s, 2 x 80 ms), or by one of the two only: the pair's two routes differ.
inline spiderflow::Topology detour_triangle(bool direct, bool detour, int nodes = 1) {
    std::vector<LinkSpec> links;
    if (direct) links.push_back({0, 1, 1.0, 24});
    if (detour) {
        links.push_back({0, 2, 1.1, 80});
        links.push_back({2, 1, 1.1, 80});
    }
    return make_topology({{"a", "H100-SXM", nodes}, {"b", "H100-SXM", nodes}, {"c", "H100-SXM", 1}}, links);
}

inline spiderflow::ModelArch megatron_gpt(int layers, int hidden, int heads) {
    spiderflow::ModelArch m;
    m.name = "gpt-" + std::to_string(layers) + "x" + std::to_string(hidden);
    m.layers = layers;
    m.hidden = hidden;
    m.heads = heads;
    m.kv_heads = heads;
    m.ffn_hidden = 4 * hidden;
    m.vocab = 51200;
    m.tied_embeddings = true;
    return m;
}

inline spiderflow::JobSpec job_of(const spiderflow::ModelArch& m, int global_batch, int seq_len,
                                   spiderflow::Recompute recompute) {
    spiderflow::JobSpec j;
    j.model = m;
    j.global_batch = global_batch;
    j.seq_len = seq_len;
    j.recompute = recompute;
    return j;
}

}  // namespace sftest
