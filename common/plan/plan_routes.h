// Which of a cluster pair's two routes (RouteKind) each kind of a plan's traffic takes: pipeline
// messages go one activation at a time, a DP ring edge sends 2(n-1) messages of G/n one after
// another. route_for() picks whichever route is quicker for that. The cost model prices, and the
// plan's text names, these same routes.
#pragma once

#include "common/plan/plan.h"
#include "common/topology/topology.h"

namespace spiderflow {

RouteKind pp_route(const Topology& topology, const Plan& plan, int a, int b);
// `ring_size`: members of the ring the edge belongs to (the clusters of a hierarchical
// all-reduce, the replicas of a flat one).
RouteKind dp_route(const Topology& topology, const Plan& plan, int stage, int ring_size, int a, int b);
// The route of the DP ring edges between clusters a and b: those of the first stage whose
// all-reduce joins the two (stages rarely differ: the choice depends on the gradient size).
// Widest when no stage's ring joins them.
RouteKind dp_route_between(const Topology& topology, const Plan& plan, int a, int b);

}  // namespace spiderflow
