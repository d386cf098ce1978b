// Helpers shared by the topology unit tests.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "common/topology/topology.h"
#include "common/util/units.h"

namespace spiderflow::test {

// A cluster with `nodes` 8-GPU nodes of one type and no switch tree.
inline Cluster small_cluster(const std::string& name, int nodes = 1, const std::string& gpu = "A100-80GB") {
    Cluster c;
    c.name = name;
    for (int i = 0; i < nodes; ++i) {
        Node n;
        n.name = name + "-n" + std::to_string(i);
        n.gpu_type = gpu;
        n.gpus = 8;
        n.nvlink_domain_size = 8;
        c.nodes.push_back(n);
    }
    return c;
}

inline Link link(int a, int b, double gbps, double latency_ms) {
    return Link{a, b, units::gbps_to_Bps(gbps), units::ms_to_s(latency_ms)};
}

// Calls visit(bottleneck_Bps, latency_s) once for every simple path from a to b: the brute force
// the path tests compare the computed routes with.
template <class Visit>
void for_each_simple_path(const Topology& t, int a, int b, Visit&& visit) {
    std::vector<char> seen(t.clusters.size(), 0);
    auto walk = [&](auto&& self, int at, double bw, double lat) -> void {
        if (at == b) {
            visit(bw, lat);
            return;
        }
        for (const Link& l : t.links) {
            const int next = l.a == at ? l.b : l.b == at ? l.a : -1;
            if (next < 0 || seen[static_cast<size_t>(next)]) continue;
            seen[static_cast<size_t>(next)] = 1;
            self(self, next, std::min(bw, l.bandwidth_Bps), lat + l.latency_s);
            seen[static_cast<size_t>(next)] = 0;
        }
    };
    seen[static_cast<size_t>(a)] = 1;
    walk(walk, a, std::numeric_limits<double>::infinity(), 0.0);
}

// Path of a shipped file, found through SF_SRCDIR (set by make check) or the source tree.
inline std::string src_path(const std::string& rel) {
    const char* dir = std::getenv("SF_SRCDIR");
    return std::string(dir && *dir ? dir : ".") + "/" + rel;
}

}  // namespace spiderflow::test
