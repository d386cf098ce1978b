// Hermod's priority order of one job's coflows ("Coflow Scheduling for LLM Training",
// SIGCOMM 2025 poster), shared by the `hermod` and `llm` schedulers.
#pragma once

#include <vector>

#include "common/coflow/matching_order.h"
#include "common/coflow/scheduler.h"

namespace spiderflow::coflow {

// True when coflow a must be served strictly before coflow b of the same job:
//  - smaller micro-batch id first (ids count across iterations: iteration * M + micro-batch;
//    a DP coflow carries the id of its iteration's last micro-batch, whose backward it follows);
//  - then type: EP above PP above DP;
//  - then smaller layer id first;
//  - except: a DP coflow with a smaller layer id wins over a later micro-batch's EP/PP coflow
//    (the next iteration's early layers need those gradients first).
bool hermod_precedes(const ActiveCoflow& a, const ActiveCoflow& b, int micro_batches);

// Rank of each coflow inside its job: how many of the job's active coflows precede it.
// Coflows of different jobs (or trace coflows, job -1, which all get rank 0) with equal rank
// share a tier. Returns tiers, highest priority first, as lists of indices into `coflows`.
std::vector<std::vector<int>> hermod_tiers(const std::vector<ActiveCoflow>& coflows,
                                           const std::vector<JobProgress>& jobs);

// Same ranks, computed only among `subset` (indices into coflows, all of one job).
std::vector<int> hermod_ranks(const std::vector<ActiveCoflow>& coflows, const std::vector<int>& subset,
                              int micro_batches);

// Serves tiers in order: inside a tier each coflow first admits a greedy matching of its flows
// (no two admitted flows share a link, largest first), the tier's admitted flows are max-min
// filled on the residual capacity, then the tier's other flows; then the next tier. `order`
// carries each coflow's admission order to the next event.
void fill_tiers(SchedView& view, const std::vector<std::vector<int>>& tiers, std::vector<double>& residual,
                MatchingOrder& order);

}  // namespace spiderflow::coflow
