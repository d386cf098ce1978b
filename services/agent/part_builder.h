// From what Slurm says to the cluster's part of the federation state: a SiteState over the
// federation topology holding only this cluster's node states, jobs and reservations and the
// link figures measured from it. Slurm and the topology file may disagree (a node added to
// slurm.conf but not to the topology, a GPU count that differs, a reservation that overlaps a
// job with IGNORE_JOBS): the builder never refuses a whole look for one such entry; it fits
// what it can and says what it did in `notes`, which the agent logs once each.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/site/site_state.h"
#include "services/agent/cluster_observation.h"

namespace spiderflow::agent {

// Throws InputError when `cluster` is not in the topology.
SiteState build_part(std::shared_ptr<const Topology> topology, const std::string& cluster,
                     const ClusterObservation& observation, const std::vector<LinkMeasurement>& links,
                     std::vector<std::string>* notes);

}  // namespace spiderflow::agent
