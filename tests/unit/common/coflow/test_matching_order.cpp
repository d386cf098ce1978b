// MatchingOrder repairs last event's order instead of sorting afresh: at every step of a
// random run it must give exactly the order a fresh stable_sort gives, ties included.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "common/coflow/allocation.h"
#include "common/coflow/matching_order.h"

using namespace spiderflow::coflow;

namespace {

std::vector<int> fresh_order(const std::vector<ActiveFlow>& flows, const std::vector<int>& subset) {
    std::vector<int> order = subset;
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return flows[a].remaining > flows[b].remaining; });
    return order;
}

}  // namespace

TEST(MatchingOrder, EqualsAFreshSortAsFlowsDrainFinishAndMove) {
    const Network net = Network::big_switch(6, 1e6);
    std::mt19937_64 rng(21);
    std::uniform_real_distribution<double> unit(0, 1);
    std::uniform_int_distribution<int> port(0, 5);
    // Flows of three coflows; sizes drawn from a few values so that many flows tie, as a
    // trace's flows to one reducer do.
    std::vector<ActiveFlow> flows;
    std::vector<int> coflow_of;
    for (int i = 0; i < 90; ++i) {
        int a = port(rng), b = port(rng);
        if (a == b) b = (a + 1) % 6;
        ActiveFlow f;
        f.id = i;
        f.path = &net.route(a, b);
        f.bytes = f.remaining = 1e6 * (1 + static_cast<int>(unit(rng) * 4));
        flows.push_back(f);
        coflow_of.push_back(i % 3);
    }
    MatchingOrder order;
    for (int step = 0; step < 60 && !flows.empty(); ++step) {
        SCOPED_TRACE("step " + std::to_string(step));
        for (int c = 0; c < 3; ++c) {
            std::vector<int> subset;
            for (size_t i = 0; i < flows.size(); ++i)
                if (coflow_of[i] == c) subset.push_back(static_cast<int>(i));
            if (subset.empty()) continue;
            ASSERT_EQ(order.sorted(flows, c, subset), fresh_order(flows, subset)) << "coflow " << c;
            const auto [admitted, rest] = greedy_matching(flows, subset, net.num_links());
            const auto [admitted2, rest2] = greedy_matching_sorted(flows, fresh_order(flows, subset), net.num_links());
            ASSERT_EQ(admitted, admitted2);
            ASSERT_EQ(rest, rest2);
        }
        order.sweep();
        // Drain: most flows at one of two shared rates (ties persist), some at their own.
        for (auto& f : flows) {
            const double u = unit(rng);
            const double rate = u < 0.4 ? 1e4 : u < 0.8 ? 3e4 : 1e5 * unit(rng);
            f.remaining = std::max(0.0, f.remaining - rate);
        }
        // Finish a few, filling each hole with the last flow as the simulator does.
        for (int k = 0; k < 2 && !flows.empty(); ++k) {
            const size_t i = static_cast<size_t>(unit(rng) * flows.size()) % flows.size();
            flows[i] = flows.back();
            flows.pop_back();
            coflow_of[i] = coflow_of.back();
            coflow_of.pop_back();
        }
    }
}

TEST(MatchingOrder, AFullReshuffleFallsBackToASort) {
    // Every flow's place changes between two calls: beyond the insertion sort's budget.
    const Network net = Network::big_switch(4, 1e6);
    std::vector<ActiveFlow> flows(200);
    std::vector<int> subset;
    for (int i = 0; i < 200; ++i) {
        flows[i].id = i;
        flows[i].path = &net.route(i % 4, (i + 1) % 4);
        flows[i].remaining = flows[i].bytes = 1000 + i;
        subset.push_back(i);
    }
    MatchingOrder order;
    EXPECT_EQ(order.sorted(flows, 7, subset), fresh_order(flows, subset));
    for (int i = 0; i < 200; ++i) flows[i].remaining = 1000 - i;
    EXPECT_EQ(order.sorted(flows, 7, subset), fresh_order(flows, subset));
}
