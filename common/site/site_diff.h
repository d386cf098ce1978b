// The deltas between two states of one site (the part the broker holds and the part the agent
// just built; a cluster's part before and after a new inventory, for the broker's delta reads),
// in an order every one of them applies in: releases and removals first (they free GPUs), nodes coming
// back up before the jobs placed on them, new jobs before their nodes drain (a drained node
// keeps its jobs, but a job cannot be added to one), link figures last. A job or reservation
// whose window or nodes changed is released and added again; when it sits on a node that stays
// drained or down, the node is lifted to up for the allocation and put back within the batch.
#pragma once

#include <vector>

#include "common/site/site_delta.h"
#include "common/site/site_state.h"

namespace spiderflow {

// Both states over the same topology.
std::vector<SiteDelta> diff_parts(const SiteState& from, const SiteState& to);

// Whether `from` with `deltas` applied equals `to` (epochs aside): the agent's check before it
// sends deltas instead of a snapshot.
bool deltas_reach(const SiteState& from, const std::vector<SiteDelta>& deltas, const SiteState& to);

}  // namespace spiderflow
