// Decentralized federations for the evaluation: the SpiderFlow paper's setting, many smaller
// clusters of mixed GPUs joined by uneven WAN links, where large jobs must cross. Every figure
// below says where it comes from; those marked "ours" are our choice, with the reason.
#include <algorithm>
#include <cstdio>
#include <iterator>
#include <cmath>
#include <string>
#include <vector>

#include "common/topology/dtfm_regions.h"
#include "common/topology/generator.h"
#include "common/topology/generator_draw.h"
#include "common/topology/spiderflow_reader.h"
#include "common/util/errors.h"
#include "common/util/units.h"

namespace spiderflow {
namespace {

struct GpuKind {
    const char* type;
    int weight;          // ours: recent and older data-centre GPUs in roughly equal measure, as
                         // in pooled academic and cloud-spot capacity (the paper's mixed fleets)
    int nvlink_domain;   // NVLink islands of 8 on SXM boards; L40S is PCIe only
    const char* nic_kind;
    double nic_gbps;     // the usual NIC per node: NDR 400G for H100, HDR 200G for A100 and V100
                         // (NVIDIA DGX reference designs), 200G RoCE for L40S servers
};
constexpr GpuKind kKinds[] = {
    {"H100-SXM", 25, 8, "ib", 400},
    {"A100-80GB", 35, 8, "ib", 200},
    {"V100", 20, 8, "ib", 200},
    {"L40S", 20, 1, "roce", 200},
};

// Leaf oversubscription (downlink : uplink). Ours: purpose-built training clusters are
// non-blocking (1:1, e.g. Meta's RoCE training fabric, SIGCOMM 2024), general-purpose HPC sites
// commonly run 2:1 and older or cost-tuned ones 4:1.
struct Oversubscription {
    double ratio;
    int weight;
};
constexpr Oversubscription kOversubscription[] = {{1, 40}, {2, 40}, {4, 20}};
constexpr int kNodesPerLeaf = 8;  // ours: a 16-port-down leaf of 8 nodes x 2 rails, or 8 x 1

template <class T>
const T& weighted(const T* items, size_t n, GeneratorDraw& draw) {
    int total = 0;
    for (size_t i = 0; i < n; ++i) total += items[i].weight;
    int pick = draw.below(total);
    for (size_t i = 0; i < n; ++i) {
        if (pick < items[i].weight) return items[i];
        pick -= items[i].weight;
    }
    return items[n - 1];
}

Cluster make_site(const std::string& name, const std::string& region, GeneratorDraw& draw) {
    const GpuKind& kind = weighted(kKinds, std::size(kKinds), draw);
    // 16 to 256 GPUs, log-uniform (ours: as many small sites as large ones at every scale),
    // as nodes of 8 GPUs.
    const double gpus = 16.0 * std::pow(16.0, draw.uniform());
    const int nodes = std::clamp(static_cast<int>(std::lround(gpus / 8.0)), 2, 32);
    const double oversubscribed = weighted(kOversubscription, std::size(kOversubscription), draw).ratio;
    Cluster c;
    c.name = name;
    c.region = region;
    c.intra_bandwidth_Bps = units::gbps_to_Bps(kind.nic_gbps);
    c.intra_latency_s = units::us_to_s(5);
    const int leaves = (nodes + kNodesPerLeaf - 1) / kNodesPerLeaf;
    for (int l = 0; l < leaves; ++l) c.switches.push_back(Switch{"leaf" + std::to_string(l + 1), {}, {}, 0});
    for (int k = 0; k < nodes; ++k) {
        Node n;
        n.name = group_node_name(name + "-n", k + 1, 3);
        n.gpu_type = kind.type;
        n.gpus = 8;
        n.nvlink_domain_size = kind.nvlink_domain;
        n.nics.push_back(Nic{"mlx5_0", kind.nic_kind, units::gbps_to_Bps(kind.nic_gbps), -1});
        Switch& leaf = c.switches[static_cast<size_t>(k / kNodesPerLeaf)];
        n.leaf_switch = leaf.name;
        leaf.nodes.push_back(n.name);
        leaf.uplink_Bps += n.network_Bps() / oversubscribed;
        c.nodes.push_back(std::move(n));
    }
    if (leaves > 1) {
        Switch spine{"spine", {}, {}, 0};
        for (int l = 0; l < leaves; ++l) spine.switches.push_back(c.switches[static_cast<size_t>(l)].name);
        c.switches.push_back(spine);
    } else {
        c.switches[0].uplink_Bps = 0;  // one leaf is the whole fabric: nothing above it
    }
    return c;
}

}  // namespace

Topology generate_decentralized(const GeneratorOptions& opt) {
    if (opt.clusters < 2 || opt.clusters > GeneratorOptions::kMaxClusters) {
        throw InputError("generator", 0, "--clusters",
                         "a decentralized federation needs between 2 and " + std::to_string(GeneratorOptions::kMaxClusters));
    }
    GeneratorDraw draw(opt.seed);
    const int n = opt.clusters;
    const std::vector<std::string> regions = dtfm_regions();
    Topology t;
    t.name = "decentralized-" + std::to_string(n) + "-s" + std::to_string(opt.seed);
    std::vector<int> region_of(static_cast<size_t>(n));
    std::vector<int> per_region(regions.size(), 0);
    for (int i = 0; i < n; ++i) {
        // Every region before any repeats, so small federations span the world as DTFM's does.
        const int r = i < static_cast<int>(regions.size()) ? i : draw.below(static_cast<int>(regions.size()));
        region_of[static_cast<size_t>(i)] = r;
        char suffix[16];
        std::snprintf(suffix, sizeof suffix, "-%03d", ++per_region[static_cast<size_t>(r)]);
        t.clusters.push_back(make_site(regions[static_cast<size_t>(r)] + suffix, regions[static_cast<size_t>(r)], draw));
    }
    // Every pair linked (the sites reach each other over the Internet, as DTFM's regions do), at
    // DTFM's measured figure for their regions, or its in-region figure for two sites of one
    // region; +-10% per link (ours: two sites of one pair of regions do not see exactly one figure).
    for (int a = 0; a < n; ++a) {
        for (int b = a + 1; b < n; ++b) {
            const DtfmLink f = dtfm_link(regions[static_cast<size_t>(region_of[static_cast<size_t>(a)])],
                                         regions[static_cast<size_t>(region_of[static_cast<size_t>(b)])]);
            const double gbps = std::round(f.gbps * (0.9 + 0.2 * draw.uniform()) * 1000.0) / 1000.0;
            t.links.push_back(Link{a, b, units::gbps_to_Bps(gbps), units::ms_to_s(f.latency_ms)});
        }
    }
    t.finalize(t.name);
    return t;
}

}  // namespace spiderflow
