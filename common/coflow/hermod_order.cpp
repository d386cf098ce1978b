#include "common/coflow/hermod_order.h"

#include <algorithm>
#include <map>

#include "common/coflow/allocation.h"

namespace spiderflow::coflow {

namespace {

int type_rank(CoflowKind k) {
    switch (k) {
        case CoflowKind::ep: return 0;
        case CoflowKind::pp: return 1;
        case CoflowKind::generic: return 1;
        case CoflowKind::dp: return 2;
    }
    return 1;
}

long global_mb(const ActiveCoflow& c, int micro_batches) {
    return static_cast<long>(c.iteration) * micro_batches + c.micro_batch;
}

}  // namespace

bool hermod_precedes(const ActiveCoflow& a, const ActiveCoflow& b, int micro_batches) {
    const bool a_dp = a.kind == CoflowKind::dp, b_dp = b.kind == CoflowKind::dp;
    const long ma = global_mb(a, micro_batches), mb = global_mb(b, micro_batches);
    if (a_dp && b_dp) return a.iteration != b.iteration ? a.iteration < b.iteration : a.layer < b.layer;
    if (a_dp != b_dp) {
        const ActiveCoflow& dp = a_dp ? a : b;
        const ActiveCoflow& other = a_dp ? b : a;
        const long mdp = a_dp ? ma : mb, mother = a_dp ? mb : ma;
        // The exception: DP of an early layer beats a later micro-batch's EP/PP of a later layer.
        const bool dp_first = mother > mdp && dp.layer < other.layer;
        return a_dp ? dp_first : !dp_first;
    }
    if (ma != mb) return ma < mb;
    if (type_rank(a.kind) != type_rank(b.kind)) return type_rank(a.kind) < type_rank(b.kind);
    return a.layer < b.layer;
}

std::vector<int> hermod_ranks(const std::vector<ActiveCoflow>& coflows, const std::vector<int>& subset,
                              int micro_batches) {
    // Counting predecessors gives a rank even where the exception makes the relation
    // intransitive; equal keys give equal ranks.
    std::vector<int> rank(subset.size(), 0);
    for (size_t i = 0; i < subset.size(); ++i)
        for (size_t j = 0; j < subset.size(); ++j)
            if (i != j && hermod_precedes(coflows[subset[j]], coflows[subset[i]], micro_batches)) ++rank[i];
    return rank;
}

std::vector<std::vector<int>> hermod_tiers(const std::vector<ActiveCoflow>& coflows,
                                           const std::vector<JobProgress>& jobs) {
    std::map<int, std::vector<int>> by_job;
    for (size_t c = 0; c < coflows.size(); ++c) by_job[coflows[c].job].push_back(static_cast<int>(c));
    std::map<int, std::vector<int>> tiers;
    for (const auto& [job, members] : by_job) {
        if (job < 0) {
            for (int c : members) tiers[0].push_back(c);
            continue;
        }
        const int m = job < static_cast<int>(jobs.size()) ? std::max(1, jobs[job].micro_batches) : 1;
        const std::vector<int> rank = hermod_ranks(coflows, members, m);
        for (size_t i = 0; i < members.size(); ++i) tiers[rank[i]].push_back(members[i]);
    }
    std::vector<std::vector<int>> out;
    for (auto& [r, members] : tiers) out.push_back(std::move(members));
    return out;
}

void fill_tiers(SchedView& view, const std::vector<std::vector<int>>& tiers, std::vector<double>& residual,
                MatchingOrder& order) {
    auto& flows = *view.flows;
    const auto& coflows = *view.coflows;
    for (const auto& tier : tiers) {
        std::vector<int> admitted, rest;
        for (int c : tier) {
            auto [a, r] = greedy_matching_sorted(flows, order.sorted(flows, coflows[c].id, coflows[c].flows),
                                                 view.net->num_links());
            admitted.insert(admitted.end(), a.begin(), a.end());
            rest.insert(rest.end(), r.begin(), r.end());
        }
        maxmin_fill(flows, admitted, residual);
        maxmin_fill(flows, rest, residual);
    }
    order.sweep();
}

}  // namespace spiderflow::coflow
