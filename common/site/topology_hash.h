// A content hash of a topology, so that a site-state snapshot is never applied over another
// topology (node names alone could match by accident: two sites both calling nodes gpu001).
#pragma once

#include <string>

#include "common/topology/topology.h"

namespace spiderflow {

// "fnv1a64:" and 16 hex digits over what an overlay refers to: cluster names, each node's
// name, GPU type, GPU count and NVLink domain, and which clusters are linked, all in order.
// Figures that an overlay does not depend on (bandwidths, latencies, NICs, switches, regions,
// comments) are left out, so re-measuring a nominal figure does not orphan snapshots.
std::string topology_hash(const Topology& topology);

}  // namespace spiderflow
