// Synthetic federation generator; see generator.h.
#include "common/topology/generator.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/topology/generator_draw.h"
#include "common/topology/spiderflow_reader.h"
#include "common/util/errors.h"
#include "common/util/units.h"

namespace spiderflow {
namespace {

struct Metro {
    const char* name;
    double lat, lon;  // degrees
};

// Cloud/HPC metro areas; the first eight are the regions of the DTFM world-wide scenario.
constexpr Metro kMetros[] = {
    {"oregon", 45.6, -121.2},   {"virginia", 38.9, -77.5}, {"ohio", 40.0, -83.0},
    {"tokyo", 35.7, 139.7},     {"seoul", 37.6, 127.0},    {"london", 51.5, -0.1},
    {"frankfurt", 50.1, 8.7},   {"ireland", 53.3, -6.3},   {"singapore", 1.35, 103.8},
    {"sydney", -33.9, 151.2},   {"saopaulo", -23.5, -46.6}, {"mumbai", 19.1, 72.9},
};
constexpr int kNumMetros = static_cast<int>(sizeof kMetros / sizeof kMetros[0]);

struct GpuChoice {
    const char* type;
    int weight;         // relative frequency
    int nvlink_domain;  // 1 = PCIe only
    const char* nic_kind;
    double nic_gbps;
};

constexpr GpuChoice kGpus[] = {
    {"H100-SXM", 25, 8, "ib", 400}, {"H200", 15, 8, "ib", 400}, {"A100-80GB", 20, 8, "ib", 200},
    {"A100-40GB", 15, 8, "ib", 200}, {"V100", 15, 8, "ib", 200}, {"L40S", 10, 1, "roce", 200},
};

using Draw = GeneratorDraw;

double great_circle_km(double lat1, double lon1, double lat2, double lon2) {
    constexpr double kPi = 3.14159265358979323846;
    constexpr double kEarthKm = 6371.0;
    const double r = kPi / 180.0;
    const double dlat = (lat2 - lat1) * r, dlon = (lon2 - lon1) * r;
    const double h = std::sin(dlat / 2) * std::sin(dlat / 2) +
                     std::cos(lat1 * r) * std::cos(lat2 * r) * std::sin(dlon / 2) * std::sin(dlon / 2);
    return 2 * kEarthKm * std::asin(std::min(1.0, std::sqrt(h)));
}

std::string padded(int x, int digits) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%0*d", digits, x);
    return buf;
}

Cluster make_cluster(const std::string& name, const std::string& region, Draw& draw) {
    int total = 0;
    for (const auto& g : kGpus) total += g.weight;
    int pick = draw.below(total);
    const GpuChoice* gpu = &kGpus[0];
    for (const auto& g : kGpus) {
        if (pick < g.weight) {
            gpu = &g;
            break;
        }
        pick -= g.weight;
    }
    Cluster c;
    c.name = name;
    c.region = region;
    c.intra_bandwidth_Bps = units::gbps_to_Bps(gpu->nic_gbps);
    c.intra_latency_s = units::us_to_s(5);
    const int nodes = draw.between(2, 16);
    // Bigger clusters get two leaf switches under a spine; small ones a single switch.
    const int leaves = nodes > 8 ? 2 : 1;
    for (int l = 0; l < leaves; ++l) {
        Switch s;
        s.name = "leaf" + std::to_string(l + 1);
        c.switches.push_back(s);
    }
    for (int k = 0; k < nodes; ++k) {
        Node n;
        n.name = group_node_name(name + "-n", k + 1, 3);
        n.gpu_type = gpu->type;
        n.gpus = 8;
        n.nvlink_domain_size = gpu->nvlink_domain;
        n.nics.push_back(Nic{"mlx5_0", gpu->nic_kind, units::gbps_to_Bps(gpu->nic_gbps), -1});
        Switch& leaf = c.switches[static_cast<size_t>(k * leaves / nodes)];
        n.leaf_switch = leaf.name;
        leaf.nodes.push_back(n.name);
        leaf.uplink_Bps += n.network_Bps();  // non-blocking fabric
        c.nodes.push_back(std::move(n));
    }
    if (leaves > 1) {
        Switch spine;
        spine.name = "spine";
        for (int l = 0; l < leaves; ++l) spine.switches.push_back(c.switches[l].name);
        c.switches.push_back(spine);
    } else {
        c.switches[0].uplink_Bps = 0;  // top of the tree: no uplink
    }
    return c;
}

}  // namespace

Topology generate_topology(const GeneratorOptions& opt) {
    if (opt.profile == GeneratorOptions::Profile::decentralized) return generate_decentralized(opt);
    if (opt.clusters < 1 || opt.clusters > GeneratorOptions::kMaxClusters) {
        throw InputError("generator", 0, "--clusters",
                         "must be between 1 and " + std::to_string(GeneratorOptions::kMaxClusters));
    }
    if (opt.nearest < 1) throw InputError("generator", 0, "--nearest", "must be >= 1");
    Draw draw(opt.seed);
    const int n = opt.clusters;
    Topology t;
    t.name = "generated-" + std::to_string(n) + "-s" + std::to_string(opt.seed);

    std::vector<double> lat(n), lon(n);
    std::vector<int> metro(n), hub(kNumMetros, -1), per_metro(kNumMetros, 0);
    for (int i = 0; i < n; ++i) {
        // Cover every metro before repeating any, so small federations are spread out.
        metro[i] = i < kNumMetros ? i : draw.below(kNumMetros);
        // Scatter within roughly 300 km of the metro centre.
        lat[i] = kMetros[metro[i]].lat + (draw.uniform() - 0.5) * 5.0;
        lon[i] = kMetros[metro[i]].lon + (draw.uniform() - 0.5) * 5.0;
        const std::string name = std::string(kMetros[metro[i]].name) + "-" + padded(++per_metro[metro[i]], 3);
        t.clusters.push_back(make_cluster(name, kMetros[metro[i]].name, draw));
        if (hub[metro[i]] < 0) hub[metro[i]] = i;
    }

    std::set<std::pair<int, int>> pairs;
    auto add = [&](int a, int b) {
        if (a != b) pairs.emplace(std::min(a, b), std::max(a, b));
    };
    if (n <= opt.full_mesh_max) {
        for (int a = 0; a < n; ++a) {
            for (int b = a + 1; b < n; ++b) add(a, b);
        }
    } else {
        std::vector<std::pair<double, int>> near;
        for (int a = 0; a < n; ++a) {
            near.clear();
            for (int b = 0; b < n; ++b) {
                if (b != a) near.emplace_back(great_circle_km(lat[a], lon[a], lat[b], lon[b]), b);
            }
            const size_t k = std::min(near.size(), static_cast<size_t>(opt.nearest));
            std::partial_sort(near.begin(), near.begin() + static_cast<std::ptrdiff_t>(k), near.end());
            for (size_t j = 0; j < k; ++j) add(a, near[j].second);
            add(a, hub[metro[a]]);
        }
        for (int x = 0; x < kNumMetros; ++x) {
            for (int y = x + 1; y < kNumMetros; ++y) {
                if (hub[x] >= 0 && hub[y] >= 0) add(hub[x], hub[y]);
            }
        }
    }
    for (const auto& [a, b] : pairs) {
        const double km = great_circle_km(lat[a], lon[a], lat[b], lon[b]);
        // About 1 ms per 100 km of fibre plus a few ms of equipment and routing detours.
        const double latency_ms = 2.0 + 3.0 * draw.uniform() + km / 100.0;
        // 10 Gbps next door falling to ~0.3 Gbps across the globe (the DTFM AWS figures span
        // 0.33-1.16 Gbps between continents), +-20% jitter.
        const double span = std::min(km, 12000.0) / 12000.0;
        double gbps = 10.0 * std::pow(0.03, span) * (0.8 + 0.4 * draw.uniform());
        gbps = std::clamp(gbps, 0.3, 10.0);
        // Round to figures a person would write in a file.
        gbps = std::round(gbps * 1000.0) / 1000.0;
        t.links.push_back(Link{a, b, units::gbps_to_Bps(gbps), units::ms_to_s(std::round(latency_ms * 10.0) / 10.0)});
    }
    t.finalize(t.name);
    return t;
}

}  // namespace spiderflow
