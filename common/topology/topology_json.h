// Topology -> our topology file format (the inverse of spiderflow_reader.h). Runs of nodes
// named prefix001, prefix002, ... with identical hardware are written as one node group, so
// generated federations stay readable.
#pragma once

#include <string>

#include "common/topology/topology.h"

namespace spiderflow {

// JSON text in format version Topology::kFormatVersion; figures in Gbps and ms, rounded to 12
// significant digits so that 0.79 Gbps is not written as 0.7900000000000001.
std::string topology_to_json(const Topology& topology, int indent = 2);

// Writes topology_to_json() to `path`; throws InputError if the file cannot be written.
void write_topology_file(const Topology& topology, const std::string& path);

}  // namespace spiderflow
