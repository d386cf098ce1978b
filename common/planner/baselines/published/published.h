// The baselines as their papers model a federation, beside the oracles of the same names (their
// searches deciding with our full cost model). Each searches as its system does but scores
// layouts with the model its paper describes, a view without what "largely overlooks the
// topology": clusters as flat GPU pools (no switch tree, every node the cluster's mean network
// bandwidth) and every crossing priced on its own path at the links' nominal bandwidth, as if no
// other crossing shared them (a pair without a direct link at its route's narrowest link, what a
// measured bandwidth matrix gives). Its plan is then priced on the real federation, which is
// what a site running it would see.
//   genetic-dtfm   the genetic search (DTFM's GCMA, Yuan et al. 2022) with DTFM's objective:
//                  each DP and PP pair priced on its own path
//   ilp-oblivious  the cross-cluster ILP with clusters as flat pools and direct links at
//                  nominal bandwidth
//   greedy-atlas   Atlas's greedy datacenter chain (Palak et al. 2024) on the bandwidths Atlas
//                  measures between datacenters, without contention
#pragma once

#include <memory>

#include "common/planner/planner.h"

namespace spiderflow {

std::unique_ptr<PlannerPolicy> make_genetic_dtfm();
std::unique_ptr<PlannerPolicy> make_ilp_oblivious();
std::unique_ptr<PlannerPolicy> make_greedy_atlas();

// The federation as the published models see it (header): same clusters, nodes, GPUs and links in
// the same order, so a plan made on it addresses the real one. Finalized.
Topology oblivious_view(const Topology& real);

}  // namespace spiderflow
