// SpinSearch's cluster-level layouts. spin() grows an ordered set of clusters out of a seed
// along the best neighbours (compute gained against the bottleneck link); fill() lays the
// (stage, replica) cells over that ordered set in one orientation: replicas in `groups` groups,
// each group stage-major. groups == 1 aligns stage k of every replica in one cluster (DP local,
// pipeline across sites); groups == dp keeps whole pipelines inside clusters (DP across,
// hierarchical); values between mix the two.
#pragma once

#include <utility>
#include <vector>

#include "common/planner/shapes.h"
#include "common/planner/tpa/inventory.h"
#include "common/topology/topology.h"

namespace spiderflow::spin {

struct ClusterShare {
    int cluster = -1;   // topology index
    int slots = 0;      // TP slots it offers
    double flops = 0;   // per-GPU FLOP/s of its fastest slots, mean
};

// Bandwidth at which the lighter of PP and DP traffic takes as long as compute; links much
// wider than this barely slow the job, much thinner ones dominate it.
double link_reference_Bps(const JobSpec& job, const Shape& shape, double gpu_flops);

// Clusters in the order the spin visits them (seed first), with enough slots for the shape's
// pp * dp cells; empty when the reachable clusters cannot hold them.
// candidates: indices into `inventories` (eligible clusters with slots), best first.
std::vector<ClusterShare> spin(const Topology& topology, const std::vector<tpa::ClusterInventory>& inventories,
                               const std::vector<int>& candidates, int seed, int cells, double reference_Bps);

// The same clusters re-ordered as a chain: from the seed, always on to the remaining cluster
// with the widest link from the last one, so consecutive pipeline stages meet across wide links.
// With whole_stages_of (dp, pp), the chain stops once its clusters hold pp whole stages of dp
// slots each (the rest keep their order): all Atlas's whole-stage rule reads, and a chain over a
// thousand clusters costs a million path lookups.
std::vector<ClusterShare> chain_order(const Topology& topology, std::vector<ClusterShare> order,
                                      std::pair<int, int> whole_stages_of = {0, 0});

// cell_cluster[stage * dp + replica] = topology cluster index; empty if the shares cannot hold it.
// A block that would straddle a cluster skips to the next one when the spare room allows: a whole
// group (all its stages) and each stage of it with whole_groups, each stage only without, so that
// a group may cross sites between two stages where a cluster holds a stage of it but not all.
std::vector<int> fill(const std::vector<ClusterShare>& order, int pp, int dp, int groups, bool whole_groups = true);

// The same layout with the pipeline direction turned round: stage s's cells go where stage
// pp-1-s's were. Fills and whole-stage fills put the first stages on the seed; which end sits
// where matters on mixed GPUs (the last stage also computes the logits, the first keeps the
// most activations in flight).
std::vector<int> reverse_stages(const std::vector<int>& cell_cluster, int pp, int dp);

// Orientation choices to try for dp replicas over `clusters` clusters: 1, dp and mixes.
std::vector<int> group_choices(int dp, int clusters);

}  // namespace spiderflow::spin
