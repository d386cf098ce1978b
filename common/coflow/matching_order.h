// The order in which greedy_matching() admits a coflow's flows (remaining bytes, largest
// first; ties by position in the coflow's flow list), kept per coflow from one event to the
// next. Between two events flows only lose bytes, mostly at similar rates, so last event's
// order is nearly sorted: repairing it costs about one pass, where sorting a wide coflow's
// thousands of flows afresh at every event dominated Hermod's run time.
#pragma once

#include <unordered_map>
#include <vector>

#include "common/coflow/scheduler.h"

namespace spiderflow::coflow {

class MatchingOrder {
public:
    // `subset`'s flow indices in admission order: exactly stable_sort(subset) by remaining
    // bytes, largest first. `coflow_id` names whose order to start from (ActiveCoflow::id).
    const std::vector<int>& sorted(const std::vector<ActiveFlow>& flows, int coflow_id, const std::vector<int>& subset);
    // Forgets the coflows not asked for since the previous sweep (finished ones).
    void sweep();

private:
    struct Entry {
        std::vector<int> ids;        // ActiveFlow::id, in last event's order
        bool used = false;
    };
    std::unordered_map<int, Entry> entries_;
    std::vector<int> order_;         // the answer, flow indices
    std::vector<int> index_of_id_, position_of_id_;
    std::vector<long> stamp_of_id_;  // which call last wrote an id's slots
    long stamp_ = 0;
};

// The admission walk of greedy_matching() over flows already in admission order.
std::pair<std::vector<int>, std::vector<int>> greedy_matching_sorted(const std::vector<ActiveFlow>& flows,
                                                                     const std::vector<int>& order, int num_links);

}  // namespace spiderflow::coflow
