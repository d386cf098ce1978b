// Synthetic federations for scale tests and benchmarks: N clusters (1..1024) scattered around
// real metro areas, heterogeneous GPU types and node counts, link figures from distance.
// Deterministic for a given seed on every platform (own distributions over std::mt19937_64,
// since the std:: distributions differ between standard libraries).
#pragma once

#include <cstdint>

#include "common/topology/topology.h"

namespace spiderflow {

struct GeneratorOptions {
    // metros: clusters around twelve metro areas, links from distance (scale tests, the
    // planner's benchmarks). decentralized: the evaluation's federations shaped like the
    // SpiderFlow paper's setting (generator_decentralized.cpp says where each figure comes from).
    enum class Profile { metros, decentralized };
    Profile profile = Profile::metros;
    int clusters = 8;           // 1..kMaxClusters
    uint64_t seed = 1;
    int full_mesh_max = 16;     // up to this many clusters every pair is linked
    int nearest = 4;            // above it: links to the k nearest clusters ...
    // ... plus one link to the hub of its metro area; hubs are fully meshed, which keeps the
    // graph connected and sparse (about (k+1)*N links).

    static constexpr int kMaxClusters = 1024;
};

// Returns a finalized topology named "generated-N-sS". Throws InputError for options out of
// range (field names as on the command line: "--clusters").
Topology generate_topology(const GeneratorOptions& options);
Topology generate_decentralized(const GeneratorOptions& options);

}  // namespace spiderflow
