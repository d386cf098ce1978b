// SiteState: allocations and their refusals, node states, time, what-if copies, link figures,
// deltas and the free view the planner plans on.
#include <gtest/gtest.h>

#include <memory>

#include "common/site/site_state.h"
#include "common/util/errors.h"
#include "common/util/units.h"

namespace spiderflow {
namespace {

// a: 4 nodes x 8 GPUs; b: 2 nodes x 4 GPUs; c: 1 node x 8 GPUs, linked to b only.
std::shared_ptr<const Topology> small_site() {
    Topology t;
    t.name = "small";
    const auto cluster = [](const std::string& name, int nodes, int gpus) {
        Cluster c;
        c.name = name;
        for (int i = 0; i < nodes; ++i) {
            Node n;
            n.name = name + "-n" + std::to_string(i);
            n.gpu_type = "A100-80GB";
            n.gpus = gpus;
            n.nvlink_domain_size = gpus;
            c.nodes.push_back(n);
        }
        return c;
    };
    t.clusters = {cluster("a", 4, 8), cluster("b", 2, 4), cluster("c", 1, 8)};
    t.links = {Link{0, 1, units::gbps_to_Bps(10), units::ms_to_s(20)},
               Link{1, 2, units::gbps_to_Bps(5), units::ms_to_s(30)}};
    t.finalize("small");
    return std::make_shared<const Topology>(std::move(t));
}

NodeShare share(const std::string& cluster, const std::string& node, int gpus) { return {{cluster, node}, gpus, 0}; }

class SiteStateTest : public ::testing::Test {
protected:
    SiteState s{small_site()};
    NodeRef ref(const std::string& cluster, const std::string& node) const { return s.find({cluster, node}); }
    int free_now(const std::string& cluster, const std::string& node) const { return s.free_gpus(ref(cluster, node), 0); }
};

// Runs fn, expects an InputError, returns its field and problem joined.
template <typename Fn>
std::string refusal(Fn&& fn) {
    try {
        fn();
    } catch (const InputError& e) {
        return e.field() + ": " + e.problem();
    }
    ADD_FAILURE() << "no InputError";
    return "";
}

TEST_F(SiteStateTest, AllocateAndRelease) {
    EXPECT_EQ(s.free_gpus(0, 0), 32);
    s.allocate("j1", {share("a", "a-n0", 8), share("a", "a-n1", 4)}, 0);
    EXPECT_EQ(free_now("a", "a-n0"), 0);
    EXPECT_EQ(free_now("a", "a-n1"), 4);
    EXPECT_EQ(s.free_gpus(0, 0), 20);
    EXPECT_EQ(s.epoch(), 1u);
    ASSERT_EQ(s.jobs().count("j1"), 1u);
    EXPECT_EQ(s.jobs().at("j1").total_gpus(), 12);
    s.release("j1");
    EXPECT_EQ(s.free_gpus(0, 0), 32);
    EXPECT_TRUE(s.jobs().empty());
    EXPECT_TRUE(s.use(ref("a", "a-n0")).spans.empty());
    EXPECT_EQ(s.epoch(), 2u);
}

TEST_F(SiteStateTest, OverAllocationIsRefusedAndChangesNothing) {
    s.allocate("j1", {share("a", "a-n0", 6)}, 0);
    const std::string why = refusal([&] { s.allocate("j2", {share("a", "a-n1", 8), share("a", "a-n0", 4)}, 0); });
    EXPECT_NE(why.find("job 'j2'"), std::string::npos) << why;
    EXPECT_NE(why.find("a:a-n0 asks 4 GPUs, 2 of 8 free"), std::string::npos) << why;
    // The first node of the refused job was not taken either.
    EXPECT_EQ(free_now("a", "a-n1"), 8);
    EXPECT_EQ(s.epoch(), 1u);
    EXPECT_EQ(s.jobs().size(), 1u);
}

TEST_F(SiteStateTest, UnknownNodesJobsAndBadRequestsAreRefusedByName) {
    EXPECT_NE(refusal([&] { s.allocate("j1", {share("a", "nope", 1)}, 0); }).find("unknown node 'nope' in cluster 'a'"),
              std::string::npos);
    EXPECT_NE(refusal([&] { s.allocate("j1", {share("zz", "a-n0", 1)}, 0); }).find("unknown cluster 'zz'"),
              std::string::npos);
    EXPECT_NE(refusal([&] { s.release("ghost"); }).find("job 'ghost'"), std::string::npos);
    EXPECT_NE(refusal([&] { s.allocate("j1", {share("a", "a-n0", 1), share("a", "a-n0", 1)}, 0); }).find("listed twice"),
              std::string::npos);
    EXPECT_NE(refusal([&] { s.allocate("j1", {share("a", "a-n0", 1)}, 10, 10); }).find("empty time window"),
              std::string::npos);
    s.allocate("j1", {share("a", "a-n0", 1)}, 0);
    EXPECT_NE(refusal([&] { s.allocate("j1", {share("a", "a-n1", 1)}, 0); }).find("already holds"), std::string::npos);
    EXPECT_THROW(s.find({"a", "nope"}), InputError);
    EXPECT_EQ(s.epoch(), 1u);
}

TEST_F(SiteStateTest, DrainedNodeKeepsItsJobsButTakesNoNewOnes) {
    s.allocate("j1", {share("a", "a-n0", 4)}, 0);
    s.set_node_state({"a", "a-n0"}, NodeState::drained, "bad DIMM");
    EXPECT_EQ(free_now("a", "a-n0"), 0);
    EXPECT_EQ(s.jobs().count("j1"), 1u);
    const std::string why = refusal([&] { s.allocate("j2", {share("a", "a-n0", 2)}, 0); });
    EXPECT_NE(why.find("a:a-n0 is drained (bad DIMM)"), std::string::npos) << why;
    s.set_node_state({"a", "a-n1"}, NodeState::down, "no heartbeat");
    EXPECT_NE(refusal([&] { s.allocate("j3", {share("a", "a-n1", 1)}, 0); }).find("is down"), std::string::npos);
    s.set_node_state({"a", "a-n0"}, NodeState::up);
    EXPECT_EQ(free_now("a", "a-n0"), 4);
    EXPECT_THROW(s.set_node_state({"a", "nope"}, NodeState::down), InputError);
}

TEST_F(SiteStateTest, FreeAtTimeCountsEndingAllocationsAndReservations) {
    const NodeRef n0 = ref("a", "a-n0");
    const NodeRef n1 = ref("a", "a-n1");
    s.allocate("j1", {share("a", "a-n0", 8)}, 0, 100);
    s.add_reservation({"maint", 50, 200, {share("a", "a-n1", 8)}});
    EXPECT_EQ(s.free_gpus(n0, 0), 0);
    EXPECT_EQ(s.free_gpus(n0, 99), 0);
    EXPECT_EQ(s.free_gpus(n0, 100), 8);   // the allocation ended
    EXPECT_EQ(s.free_gpus(n1, 0), 8);
    EXPECT_EQ(s.free_gpus(n1, 50), 0);    // the reservation began
    EXPECT_EQ(s.free_gpus(n1, 200), 8);
    EXPECT_EQ(s.free_gpus(0, 60), 16);
    EXPECT_EQ(s.free_gpus(0, 150), 24);
    EXPECT_EQ(s.free_gpus_between(n1, 0, 60), 0);
    EXPECT_EQ(s.free_gpus_between(n1, 0, 50), 8);
    // A job that would run into the reservation is refused; one that ends before it fits.
    EXPECT_NE(refusal([&] { s.allocate("j2", {share("a", "a-n1", 1)}, 0, 60); }).find("0 of 8 free from 0 to 60"),
              std::string::npos);
    s.allocate("j2", {share("a", "a-n1", 8)}, 0, 50);
    // A reservation over a running job is refused too, and one on a down node is allowed.
    EXPECT_THROW(s.add_reservation({"late", 90, 120, {share("a", "a-n0", 1)}}), InputError);
    s.set_node_state({"b", "b-n0"}, NodeState::down, "maintenance");
    s.add_reservation({"fix", 0, kForever, {share("b", "b-n0", 4)}});
    EXPECT_THROW(s.add_reservation({"fix", 0, 10, {share("b", "b-n1", 1)}}), InputError);  // name taken
    s.remove_reservation("maint");
    EXPECT_EQ(s.free_gpus(n1, 60), 8);
    EXPECT_THROW(s.remove_reservation("maint"), InputError);
}

TEST_F(SiteStateTest, CloneIsIndependentOfItsOriginal) {
    s.allocate("j1", {share("a", "a-n0", 8)}, 0);
    const uint64_t epoch = s.epoch();
    SiteState what_if = s.clone();
    EXPECT_EQ(&what_if.topology(), &s.topology());   // capacity is shared, not copied
    EXPECT_EQ(what_if.epoch(), epoch);
    what_if.allocate("j2", {share("a", "a-n1", 8)}, 0);
    what_if.release("j1");
    what_if.set_node_state({"a", "a-n2"}, NodeState::drained, "what if");
    what_if.measure_link({"a", "b", units::gbps_to_Bps(1), 0.05, 0, "test"});
    EXPECT_EQ(what_if.epoch(), epoch + 4);
    EXPECT_EQ(s.epoch(), epoch);
    EXPECT_EQ(s.jobs().size(), 1u);
    EXPECT_EQ(s.jobs().count("j1"), 1u);
    EXPECT_EQ(free_now("a", "a-n0"), 0);
    EXPECT_EQ(free_now("a", "a-n1"), 8);
    EXPECT_EQ(s.use(ref("a", "a-n2")).state, NodeState::up);
    EXPECT_TRUE(s.measured_links().empty());
    EXPECT_EQ(what_if.free_gpus(what_if.find({"a", "a-n0"}), 0), 8);
}

TEST_F(SiteStateTest, EffectiveLinkIsMeasuredWhenMeasuredElseNominal) {
    auto nominal = s.effective_link(0, 1);
    ASSERT_TRUE(nominal);
    EXPECT_FALSE(nominal->measured);
    EXPECT_DOUBLE_EQ(nominal->bandwidth_Bps, units::gbps_to_Bps(10));
    // Measured in the other direction: stored in the topology's orientation, read either way.
    s.measure_link({"b", "a", units::gbps_to_Bps(2.5), 0.025, 1234, "probe"});
    for (auto [x, y] : {std::pair{0, 1}, std::pair{1, 0}}) {
        auto m = s.effective_link(x, y);
        ASSERT_TRUE(m);
        EXPECT_TRUE(m->measured);
        EXPECT_DOUBLE_EQ(m->bandwidth_Bps, units::gbps_to_Bps(2.5));
        EXPECT_DOUBLE_EQ(m->latency_s, 0.025);
        EXPECT_EQ(m->timestamp, 1234);
        EXPECT_EQ(m->source, "probe");
    }
    EXPECT_EQ(s.measured_links().begin()->second.a, "a");
    EXPECT_FALSE(s.effective_link(0, 2));   // no direct link a-c
    EXPECT_NE(refusal([&] { s.measure_link({"a", "c", 1e9, 0.01, 0, "probe"}); }).find("no direct link"),
              std::string::npos);
    EXPECT_THROW(s.measure_link({"a", "b", -1, 0.01, 0, "probe"}), InputError);
    EXPECT_THROW(s.measure_link({"a", "zz", 1e9, 0.01, 0, "probe"}), InputError);
}

// A site's measured_link_max_age: measurements older than the limit give way to the declared
// figure again, in the planner's view too, and the view says where a figure came from.
TEST_F(SiteStateTest, OldMeasurementsAreForgottenAndTheViewNamesItsFigures) {
    const SiteTime now = 1765046400;   // 2025-12-06 18:40:00 UTC
    s.measure_link({"a", "b", units::gbps_to_Bps(2.5), 0.025, now - 100, "spiderflow-probe"});
    const Topology measured = s.free_view(now);
    const int li = measured.link_between(0, 1);
    ASSERT_GE(li, 0);
    EXPECT_DOUBLE_EQ(measured.links[static_cast<size_t>(li)].bandwidth_Bps, units::gbps_to_Bps(2.5));
    EXPECT_EQ(measured.links[static_cast<size_t>(li)].figure, "measured by spiderflow-probe at 2025-12-06 18:38:20 UTC");
    const uint64_t epoch = s.epoch();
    EXPECT_EQ(s.forget_measurements_before(now - 200), 0);   // younger than the limit: kept
    EXPECT_EQ(s.epoch(), epoch);
    EXPECT_EQ(s.forget_measurements_before(now - 50), 1);
    EXPECT_GT(s.epoch(), epoch);
    EXPECT_FALSE(s.effective_link(0, 1)->measured);
    const Topology declared = s.free_view(now);
    EXPECT_DOUBLE_EQ(declared.links[static_cast<size_t>(li)].bandwidth_Bps, units::gbps_to_Bps(10));
    EXPECT_TRUE(declared.links[static_cast<size_t>(li)].figure.empty());
    EXPECT_EQ(when_text(42), "42");   // a snapshot's small clock stays a number
}

TEST_F(SiteStateTest, ApplyTakesEveryDeltaAndBumpsTheEpoch) {
    const std::vector<SiteDelta> deltas = {
        JobAllocated{{"j1", 0, 100, {share("a", "a-n0", 8)}}},
        NodeStateChanged{{"a", "a-n1"}, NodeState::drained, "flaky", std::vector<std::string>{"ib", "nvme"}},
        ReservationAdded{{"r", 10, 20, {share("b", "b-n0", 2)}}},
        LinkMeasured{{"a", "b", units::gbps_to_Bps(3), 0.02, 5, "agent a"}},
        ReservationRemoved{"r"},
        JobReleased{"j1"},
    };
    for (size_t i = 0; i < deltas.size(); ++i) {
        s.apply(deltas[i]);
        EXPECT_EQ(s.epoch(), i + 1) << delta_kind(deltas[i]);
    }
    EXPECT_TRUE(s.jobs().empty());
    EXPECT_TRUE(s.reservations().empty());
    EXPECT_EQ(s.use(ref("a", "a-n1")).features, (std::vector<std::string>{"ib", "nvme"}));
    EXPECT_EQ(s.measured_links().size(), 1u);
    // A refused delta leaves the epoch alone.
    EXPECT_THROW(s.apply(JobReleased{"j1"}), InputError);
    EXPECT_EQ(s.epoch(), deltas.size());
}

TEST_F(SiteStateTest, FreeViewHasTheFreeGpusAndEffectiveLinks) {
    s.allocate("j1", {share("a", "a-n0", 8), share("a", "a-n1", 3)}, 0, 100);
    s.set_node_state({"a", "a-n2"}, NodeState::drained, "test");
    s.add_reservation({"r", 50, kForever, {share("b", "b-n0", 4)}});
    s.measure_link({"a", "b", units::gbps_to_Bps(1), 0.1, 0, "probe"});
    const Topology now = s.free_view(0);
    EXPECT_TRUE(now.finalized());
    EXPECT_EQ(now.clusters.size(), 3u);
    EXPECT_EQ(now.clusters[0].nodes.size(), 4u);   // busy nodes stay, so indices still match
    EXPECT_EQ(now.clusters[0].nodes[0].gpus, 0);
    EXPECT_EQ(now.clusters[0].nodes[1].gpus, 5);
    EXPECT_EQ(now.clusters[0].nodes[1].nvlink_domain_size, 5);
    EXPECT_EQ(now.clusters[0].nodes[2].gpus, 0);   // drained
    EXPECT_EQ(now.clusters[0].nodes[3].gpus, 8);
    EXPECT_EQ(now.clusters[1].nodes[0].gpus, 4);
    EXPECT_EQ(now.total_gpus(), 8 + 5 + 8 + 8);
    EXPECT_DOUBLE_EQ(now.path(0, 1).bandwidth_Bps, units::gbps_to_Bps(1));
    EXPECT_DOUBLE_EQ(now.path(0, 1).latency_s, 0.1);
    const Topology later = s.free_view(100);
    EXPECT_EQ(later.clusters[0].nodes[0].gpus, 8);
    EXPECT_EQ(later.clusters[0].nodes[2].gpus, 0);
    EXPECT_EQ(later.clusters[1].nodes[0].gpus, 0);   // reserved from 50 on
    // The state's own topology is untouched.
    EXPECT_EQ(s.topology().clusters[0].nodes[0].gpus, 8);
    EXPECT_DOUBLE_EQ(s.topology().path(0, 1).bandwidth_Bps, units::gbps_to_Bps(10));
}

TEST(SiteStateCtor, NeedsAFinalizedTopology) {
    auto t = std::make_shared<const Topology>();
    EXPECT_THROW(SiteState{t}, InputError);
    EXPECT_THROW(SiteState{nullptr}, InputError);
}

}  // namespace
}  // namespace spiderflow
