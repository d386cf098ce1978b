// The broker's delta reads: what FederationState::changes_since says, applied to the merged view
// a reader held, gives the merged view now, byte for byte, whatever the clusters wrote between.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <tuple>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/site/site_json.h"
#include "common/topology/reader.h"
#include "common/util/errors.h"
#include "services/broker/federation_state.h"

using namespace spiderflow;
using namespace spiderflow::broker;

namespace {

std::shared_ptr<const Topology> aws4() {
    const char* src = std::getenv("SF_SRCDIR");
    return std::make_shared<const Topology>(read_topology(std::string(src ? src : ".") + "/contrib/topologies/aws-4.json"));
}

// What a reader does with a delta answer: its copy, the deltas applied, the answer's epoch.
std::string caught_up(const std::shared_ptr<const Topology>& t, const std::string& copy_json,
                      const std::vector<SiteDelta>& deltas, uint64_t epoch) {
    SiteState copy = site_state_from_json(copy_json, t, "the reader's copy");
    for (const SiteDelta& d : deltas) copy.apply(d);
    copy.restore_epoch(epoch);
    return site_state_to_json(copy, -1);
}

const char* const kClusters[] = {"oregon", "virginia", "ohio", "london"};
const char* const kPrefix[] = {"or-gpu", "va-gpu", "oh-gpu", "ld-gpu"};

NodeName node_of(int c, int n) {
    char name[32];
    std::snprintf(name, sizeof name, "%s%03d", kPrefix[c], n);
    return {kClusters[c], name};
}

}  // namespace

// Random writes by four clusters, deltas and whole inventories, link figures from both ends of a
// link with clocks that disagree; after each write, every earlier copy the log still reaches
// catches up exactly.
TEST(FederationChanges, DeltaReadsReproduceTheWholeViewOverRandomWrites) {
    const auto t = aws4();
    FederationState f(t);
    std::mt19937 rng(11);
    std::vector<std::pair<uint64_t, std::string>> copies;  // (epoch, merged JSON) a reader kept
    std::vector<SiteState> parts;
    for (const char* c : kClusters) parts.emplace_back(t), (void)c;
    int next = 1;
    for (int step = 0; step < 400; ++step) {
        const int c = static_cast<int>(rng() % 4);
        SiteState& part = parts[static_cast<size_t>(c)];
        std::vector<SiteDelta> batch;
        const int what = static_cast<int>(rng() % 5);
        const NodeName n = node_of(c, 1 + static_cast<int>(rng() % 4));
        if (what == 0 && !part.jobs().empty()) {
            batch.push_back(JobReleased{part.jobs().begin()->first});
        } else if (what == 1) {
            const NodeState s = static_cast<NodeState>(rng() % 3);
            batch.push_back(NodeStateChanged{n, s, s == NodeState::up ? "" : "why " + std::to_string(step), std::nullopt});
        } else if (what == 2) {
            const char* other = kClusters[(c + 1 + rng() % 3) % 4];
            batch.push_back(LinkMeasured{{kClusters[c], other, 1e8 * (1 + static_cast<double>(rng() % 20)), 0.05,
                                          static_cast<SiteTime>(rng() % 50), std::string("agent ") + kClusters[c]}});
        } else {
            JobAllocated a;
            a.allocation = {"j" + std::to_string(next++), step, kForever, {{n, 1, 0}}};
            batch.push_back(a);
        }
        SiteState trial = part.clone();
        try {
            for (const SiteDelta& d : batch) trial.apply(d);
        } catch (const InputError&) {
            continue;  // the part would refuse it (a job on a drained node): not a write
        }
        part = std::move(trial);
        if (rng() % 6 == 0) f.replace_part(kClusters[c], site_state_to_json(part, -1), step);  // a whole inventory
        else f.apply_deltas(kClusters[c], batch, step);

        const std::string now = site_state_to_json(f.merged(), -1);
        for (const auto& [epoch, copy] : copies) {
            const auto changes = f.changes_since(epoch);
            if (!changes) continue;  // a whole read: allowed, and counted below
            ASSERT_EQ(caught_up(t, copy, *changes, f.epoch()), now) << "step " << step << ", copy of epoch " << epoch;
        }
        if (rng() % 3 == 0) copies.emplace_back(f.epoch(), now);
    }
    // Nothing here drops a measurement, so every copy must be reachable by deltas.
    for (const auto& [epoch, copy] : copies) EXPECT_TRUE(f.changes_since(epoch).has_value()) << epoch;
    ASSERT_TRUE(f.changes_since(f.epoch()).has_value());
    EXPECT_TRUE(f.changes_since(f.epoch())->empty());
    EXPECT_FALSE(f.changes_since(f.epoch() + 1).has_value()) << "a copy from the future is not ours";
}

TEST(FederationChanges, AnInventoryDroppingAMeasurementOrAReloadAsksForAWholeRead) {
    const auto t = aws4();
    FederationState f(t);
    f.apply_deltas("oregon", {LinkMeasured{{"oregon", "ohio", 2e9, 0.04, 100, "agent oregon"}}}, 1);
    const uint64_t e1 = f.epoch();
    f.apply_deltas("oregon", {NodeStateChanged{{"oregon", "or-gpu002"}, NodeState::drained, "x", std::nullopt}}, 2);
    EXPECT_TRUE(f.changes_since(e1).has_value());
    // The new inventory no longer measures oregon-ohio: the declared figure is back, which no
    // delta says.
    f.replace_part("oregon", site_state_to_json(SiteState(t), -1), 3);
    EXPECT_FALSE(f.changes_since(e1).has_value());
    const uint64_t e3 = f.epoch();
    f.apply_deltas("ohio", {NodeStateChanged{{"ohio", "oh-gpu001"}, NodeState::down, "y", std::nullopt}}, 4);
    EXPECT_TRUE(f.changes_since(e3).has_value());
    f.restore(f.epoch());  // what a reload from the store does
    EXPECT_FALSE(f.changes_since(e3).has_value());
    EXPECT_TRUE(f.changes_since(f.epoch()).has_value());
}

// A standby follows the active broker through the store: the parts written since its epoch, at
// random moments. At each epoch it reaches it holds exactly the active broker's view of that
// epoch, and its delta reads bring a copy of any epoch it was at up to date.
TEST(FederationChanges, AStandbyFollowingTheStoreServesTheActiveViewAndItsDeltas) {
    const auto t = aws4();
    FederationState active(t), standby(t);
    std::map<std::string, std::tuple<std::string, int64_t, uint64_t>> store;  // cluster -> (part, updated_at, epoch)
    std::map<uint64_t, std::string> active_views;                            // epoch -> merged JSON
    std::vector<std::pair<uint64_t, std::string>> standby_copies;
    std::mt19937 rng(5);
    std::vector<SiteState> parts;
    for (int c = 0; c < 4; ++c) parts.emplace_back(t);
    for (int step = 0; step < 300; ++step) {
        const int c = static_cast<int>(rng() % 4);
        const NodeName n = node_of(c, 1 + static_cast<int>(rng() % 4));
        std::vector<SiteDelta> batch;
        SiteState& part = parts[static_cast<size_t>(c)];
        if (rng() % 2 && !part.jobs().empty()) {
            batch.push_back(JobReleased{part.jobs().begin()->first});
        } else if (rng() % 3 == 0) {
            batch.push_back(NodeStateChanged{n, static_cast<NodeState>(rng() % 3), "s" + std::to_string(step), std::nullopt});
        } else {
            JobAllocated a;
            a.allocation = {"j" + std::to_string(step), step, kForever, {{n, 1, 0}}};
            batch.push_back(a);
        }
        SiteState trial = part.clone();
        try {
            for (const SiteDelta& d : batch) trial.apply(d);
        } catch (const InputError&) {
            continue;
        }
        part = std::move(trial);
        active.apply_deltas(kClusters[c], batch, step);
        store[kClusters[c]] = {active.part_json(kClusters[c]), step, active.epoch()};
        active_views[active.epoch()] = site_state_to_json(active.merged(), -1);

        if (rng() % 4 != 0) continue;  // the standby looks at the store now and then
        std::vector<StoredPart> since;
        for (const auto& [cluster, row] : store) {
            if (std::get<2>(row) > standby.epoch()) since.push_back({cluster, std::get<0>(row), std::get<1>(row), std::get<2>(row)});
        }
        standby.follow(since, active.epoch(), nullptr);
        const std::string now = site_state_to_json(standby.merged(), -1);
        ASSERT_EQ(now, active_views.at(standby.epoch())) << "step " << step;
        for (const auto& [epoch, copy] : standby_copies) {
            const auto changes = standby.changes_since(epoch);
            ASSERT_TRUE(changes.has_value()) << "an epoch the standby served: " << epoch;
            ASSERT_EQ(caught_up(t, copy, *changes, standby.epoch()), now) << "step " << step << ", copy of " << epoch;
        }
        standby_copies.emplace_back(standby.epoch(), now);
    }
    ASSERT_GE(standby_copies.size(), 20u);
    // An epoch the standby stepped over is not one it can answer from.
    for (uint64_t e = 1; e < standby.epoch(); ++e) {
        const bool served = std::any_of(standby_copies.begin(), standby_copies.end(), [&](const auto& c) { return c.first == e; });
        if (!served) {
            EXPECT_FALSE(standby.changes_since(e).has_value()) << e;
            break;
        }
    }
}
