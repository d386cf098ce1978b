#include "common/coflow/matching_order.h"

#include <algorithm>

namespace spiderflow::coflow {

const std::vector<int>& MatchingOrder::sorted(const std::vector<ActiveFlow>& flows, int coflow_id,
                                              const std::vector<int>& subset) {
    // Flow indices move between events (the simulator fills a finished flow's slot with the
    // last flow), so the order is kept in flow ids and mapped back to this event's indices.
    ++stamp_;
    int max_id = -1;
    for (int f : subset) max_id = std::max(max_id, flows[f].id);
    if (static_cast<int>(stamp_of_id_.size()) <= max_id) {
        const size_t n = static_cast<size_t>(max_id) + 1 + static_cast<size_t>(max_id) / 2;
        stamp_of_id_.resize(n, 0);
        index_of_id_.resize(n, 0);
        position_of_id_.resize(n, 0);
    }
    for (size_t i = 0; i < subset.size(); ++i) {
        const int id = flows[subset[i]].id;
        stamp_of_id_[id] = stamp_;
        index_of_id_[id] = subset[i];
        position_of_id_[id] = static_cast<int>(i);
    }
    Entry& e = entries_[coflow_id];
    e.used = true;
    // Last event's order, less the flows that finished, then any flow it did not know.
    order_.clear();
    for (int id : e.ids)
        if (id <= max_id && stamp_of_id_[id] == stamp_) {
            order_.push_back(index_of_id_[id]);
            stamp_of_id_[id] = -stamp_;   // placed
        }
    if (order_.size() < subset.size())
        for (int f : subset)
            if (stamp_of_id_[flows[f].id] == stamp_) order_.push_back(f);
    // The subset's positions break ties, as stable_sort keeps them: a strict total order, so
    // every sorting method lands on the one answer stable_sort gives.
    const auto before = [&](int a, int b) {
        const double ra = flows[a].remaining, rb = flows[b].remaining;
        return ra != rb ? ra > rb : position_of_id_[flows[a].id] < position_of_id_[flows[b].id];
    };
    // Insertion sort while the order needs few moves; a full sort once it needs many.
    const size_t budget = 8 * order_.size() + 64;
    size_t moves = 0;
    for (size_t i = 1; i < order_.size() && moves <= budget; ++i) {
        const int f = order_[i];
        size_t j = i;
        for (; j > 0 && before(f, order_[j - 1]); --j) order_[j] = order_[j - 1];
        order_[j] = f;
        moves += i - j;
    }
    if (moves > budget) std::sort(order_.begin(), order_.end(), before);
    e.ids.resize(order_.size());
    for (size_t i = 0; i < order_.size(); ++i) e.ids[i] = flows[order_[i]].id;
    return order_;
}

void MatchingOrder::sweep() {
    for (auto it = entries_.begin(); it != entries_.end();) {
        if (!it->second.used) {
            it = entries_.erase(it);
            continue;
        }
        it->second.used = false;
        ++it;
    }
}

std::pair<std::vector<int>, std::vector<int>> greedy_matching_sorted(const std::vector<ActiveFlow>& flows,
                                                                     const std::vector<int>& order, int num_links) {
    thread_local std::vector<char> used;
    thread_local std::vector<int> marked;
    if (used.size() < static_cast<size_t>(num_links)) used.assign(static_cast<size_t>(num_links), 0);
    marked.clear();
    std::vector<int> admitted, rest;
    for (int f : order) {
        bool free = true;
        for (int l : *flows[f].path)
            if (used[l]) free = false;
        if (!free) {
            rest.push_back(f);
            continue;
        }
        for (int l : *flows[f].path) {
            used[l] = 1;
            marked.push_back(l);
        }
        admitted.push_back(f);
    }
    for (int l : marked) used[l] = 0;
    return {admitted, rest};
}

}  // namespace spiderflow::coflow
