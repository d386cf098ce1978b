// Reader of our own topology file format (JSON, "spiderflow_topology_version": 1), documented
// in doc/topology-format.md. Files speak Gbps and ms; the Topology holds units.h units.
#pragma once

#include <string>

#include "common/topology/reader.h"
#include "common/topology/topology.h"

namespace spiderflow {

// Parses and finalizes. Throws InputError naming `source`, the field path
// ("clusters[2].nodes[0].gpus") and, for JSON syntax errors, the line.
Topology parse_spiderflow_topology(const std::string& text, const std::string& source);

// Name of node `number` of a node group: prefix + number zero-padded to `digits` digits
// ("or-gpu", 7, 3 -> "or-gpu007"). Shared by the reader and the writer's group compression.
std::string group_node_name(const std::string& prefix, int number, int digits);

class SpiderflowReader : public TopologyReader {
public:
    std::string name() const override { return "spiderflow"; }
    Topology read(const std::string& path) const override;
    Topology parse(const std::string& text, const std::string& source) const override;
};

}  // namespace spiderflow
