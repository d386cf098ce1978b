// Rate-allocation building blocks shared by the schedulers.
#pragma once

#include <vector>

#include "common/coflow/scheduler.h"

namespace spiderflow::coflow {

// Below this many bytes/s a link counts as full; far under any real link (kB/s).
inline constexpr double kRateEps = 1e-3;

// Residual capacity per link, starting from the network's capacities.
std::vector<double> full_capacity(const Network& net);

// Max-min fair progressive filling: raises the rates of `subset` flows equally until each
// meets a saturated link, consuming `residual`. Rates are added to what the flows already have.
// Flows that share a route are filled as one group; the result is bit for bit that of
// maxmin_fill_reference().
void maxmin_fill(std::vector<ActiveFlow>& flows, const std::vector<int>& subset, std::vector<double>& residual);
// The same filling flow by flow, as the simulator did it before; the reference for tests.
void maxmin_fill_reference(std::vector<ActiveFlow>& flows, const std::vector<int>& subset,
                           std::vector<double>& residual);
// bottleneck_time() as it was, summing through memory; the reference for tests.
double bottleneck_time_reference(const std::vector<ActiveFlow>& flows, const std::vector<int>& subset,
                                 const std::vector<double>& cap);
// While on (per thread), maxmin_fill() and bottleneck_time() run the references instead: lets a
// test run every scheduler along the old path (SimOptions::reference_allocation).
void use_reference_maxmin(bool on);
bool using_reference_maxmin();

// Effective bottleneck time of a set of flows against per-link capacity `cap`:
// max over links of (remaining bytes crossing it / cap). Infinity when a used link has cap 0.
double bottleneck_time(const std::vector<ActiveFlow>& flows, const std::vector<int>& subset,
                       const std::vector<double>& cap);

// Remaining bytes of a set of flows on each link it uses, each sum formed in the flows' order
// as bottleneck_time() forms it. Computed once per coflow and event, it answers both of
// Varys' questions (its order against full capacity, then its MADD rate against what is left)
// and tells in a few links, not thousands of flows, that a coflow has nothing left to use.
struct LinkLoads {
    std::vector<int> link;
    std::vector<double> bytes;
};
void link_loads(const std::vector<ActiveFlow>& flows, const std::vector<int>& subset, LinkLoads& out);
// bottleneck_time() from loads already summed: the same value.
double bottleneck_time(const LinkLoads& loads, const std::vector<double>& cap);

// Varys' MADD (minimum allocation for desired duration): every flow gets remaining / Gamma so
// all finish together at the coflow's bottleneck time Gamma on the residual capacity. Returns
// false (and allocates nothing) when some used link has no residual capacity.
bool madd_fill(std::vector<ActiveFlow>& flows, const std::vector<int>& subset, std::vector<double>& residual);
// The same with the subset's loads already summed.
bool madd_fill(std::vector<ActiveFlow>& flows, const std::vector<int>& subset, const LinkLoads& loads,
               std::vector<double>& residual);

// Work conservation: max-min fill of every active flow on whatever capacity is left.
void backfill(SchedView& view, std::vector<double>& residual);

// Flow indices of an active coflow, ordered for a greedy matching: flows that share no link
// with an earlier-admitted flow of the same set are admitted first (largest remaining first);
// returns {admitted, rest}.
std::pair<std::vector<int>, std::vector<int>> greedy_matching(const std::vector<ActiveFlow>& flows,
                                                              const std::vector<int>& subset, int num_links);

}  // namespace spiderflow::coflow
