// Helpers shared by the topology unit tests.
#pragma once

#include <cstdlib>
#include <string>

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

// Path of a shipped file, found through SF_SRCDIR (set by make check) or the source tree.
inline std::string src_path(const std::string& rel) {
    const char* dir = std::getenv("SF_SRCDIR");
    return std::string(dir && *dir ? dir : ".") + "/" + rel;
}

}  // namespace spiderflow::test
