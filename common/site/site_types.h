// The plain data of a SiteState overlay: times, node states, allocations, reservations and
// link measurements, named the way agents and the broker name them (cluster and node names,
// not indices), so deltas and snapshots carry them without the topology at hand.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace spiderflow {

// Seconds on the feeder's clock (Unix time from agents; any fixed origin in tests and scripts).
// The state keeps no clock of its own: every time-dependent query takes the time it asks about,
// so a replay and a live agent answer the same way.
using SiteTime = int64_t;
constexpr SiteTime kForever = std::numeric_limits<SiteTime>::max();
// "forever" for kForever, else the number.
std::string time_text(SiteTime t);
// A time as people read it: "2026-12-06 18:40:02 UTC" for seconds since the epoch (a live
// federation's clock), time_text() for the small times of snapshots and scripts.
std::string when_text(SiteTime t);

// What Slurm tells us about a node, reduced to what placement needs: only "up" nodes take new
// work. A drained or down node keeps the jobs it runs (Slurm lets them finish).
enum class NodeState { up, drained, down };

const char* to_string(NodeState s);
// Throws InputError(source, 0, field, ...) listing the valid names.
NodeState node_state_from_string(const std::string& s, const std::string& source, const std::string& field);

struct NodeName {
    std::string cluster;
    std::string node;
    std::string text() const { return cluster + ":" + node; }
    bool operator==(const NodeName&) const = default;
};

// GPUs and cores one job (or reservation) holds on one node. Cores are recorded, not checked:
// the topology knows no core counts.
struct NodeShare {
    NodeName node;
    int gpus = 0;
    int cores = 0;
    bool operator==(const NodeShare&) const = default;
};

// A job's allocation over [start, end): the GPUs are held from start until end or release.
struct JobAllocation {
    std::string job;
    SiteTime start = 0;
    SiteTime end = kForever;
    std::vector<NodeShare> nodes;
    int total_gpus() const;
    bool operator==(const JobAllocation&) const = default;
};

// Capacity set aside over [start, end) (an advance reservation, a maintenance window, the
// common start of a cross-site job). It blocks the GPUs whatever the node's state.
struct Reservation {
    std::string name;
    SiteTime start = 0;
    SiteTime end = kForever;
    std::vector<NodeShare> nodes;
    int total_gpus() const;
    bool operator==(const Reservation&) const = default;
};

// A measured figure for a direct inter-cluster link of the topology; it replaces the
// topology's nominal figure in effective_link() and free_view().
struct LinkMeasurement {
    std::string a;
    std::string b;
    double bandwidth_Bps = 0;
    double latency_s = 0;
    SiteTime timestamp = 0;
    std::string source;          // who measured: "spiderflow-probe", "agent oregon", ...
    bool operator==(const LinkMeasurement&) const = default;
};

}  // namespace spiderflow
