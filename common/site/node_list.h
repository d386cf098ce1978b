// The short text forms of nodes that replay scripts (`spiderflow query`) and tests use:
//   oregon:or-gpu001                       one node
//   or-gpu001                              a node whose name is unique in the federation
//   oregon:or-gpu[001-004]=8,or-gpu005=4   GPUs per node; Slurm hostlists expand, and a
//                                          cluster prefix carries over to the terms after it
#pragma once

#include <string>
#include <vector>

#include "common/site/site_types.h"
#include "common/topology/topology.h"

namespace spiderflow {

// Throws InputError(source, 0, "", ...) naming the term on an unknown cluster or node, a name
// found in several clusters without a prefix, or a malformed term.
NodeName parse_node_name(const std::string& text, const Topology& topology, const std::string& source = "node");
std::vector<NodeShare> parse_node_shares(const std::string& text, const Topology& topology,
                                         const std::string& source = "node list");

}  // namespace spiderflow
