// Fan-out layouts: a hub cluster holds the first (or last) `hub_stages` stages of every
// replica, DP local there, and each replica's remaining stages go to other clusters chosen so
// that the pipeline crossings spread over distinct WAN links. Where a federation's links are
// thin and meshed, this can beat sending every pipeline across one route, since crossings that
// share a physical link share its bandwidth (see common/cost/wan_shares.h).
#pragma once

#include <vector>

#include "common/planner/spinsearch/skeleton.h"
#include "common/topology/topology.h"

namespace spiderflow::spin {

// hub: the hub's share; others: the clusters replicas may continue on, any order. Returns
// cell_cluster[stage * dp + replica], or empty when the hub cannot hold hub_stages per replica
// or the others cannot hold the rest. hub_first: the hub holds stages 0..hub_stages-1;
// otherwise the last hub_stages.
std::vector<int> fan_out(const Topology& topology, const ClusterShare& hub, const std::vector<ClusterShare>& others,
                         int pp, int dp, int hub_stages, bool hub_first);

// Hub stage counts worth trying for a hub with `hub_slots` TP slots: as many as fit, and half.
std::vector<int> fan_out_depths(int hub_slots, int pp, int dp);

}  // namespace spiderflow::spin
