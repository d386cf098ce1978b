// The delta and snapshot formats: round trips, and strict reading that names the field.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>

#include "common/site/node_list.h"
#include "common/site/site_json.h"
#include "common/site/topology_hash.h"
#include "common/topology/reader.h"
#include "common/util/errors.h"
#include "common/util/units.h"

namespace spiderflow {
namespace {

std::string src_path(const std::string& rel) {
    const char* dir = std::getenv("SF_SRCDIR");
    return std::string(dir && *dir ? dir : ".") + "/" + rel;
}

std::shared_ptr<const Topology> aws4() {
    static const auto t = std::make_shared<const Topology>(read_topology(src_path("contrib/topologies/aws-4.json")));
    return t;
}

NodeShare share(const std::string& cluster, const std::string& node, int gpus, int cores = 0) {
    return {{cluster, node}, gpus, cores};
}

// A state with something of every kind in it.
SiteState busy_state() {
    SiteState s(aws4());
    s.allocate("train-1", {share("oregon", "or-gpu001", 8, 32), share("oregon", "or-gpu002", 8)}, 100, 3700);
    s.allocate("open-ended", {share("ohio", "oh-gpu001", 4)}, 0);
    s.add_reservation({"maint", 5000, 9000, {share("london", "ld-gpu001", 8)}});
    s.set_node_state({"oregon", "or-gpu001"}, NodeState::drained, "ECC errors", std::vector<std::string>{"ib"});
    s.set_node_state({"virginia", "va-gpu008"}, NodeState::down, "not responding");
    s.measure_link({"ohio", "oregon", units::gbps_to_Bps(0.9), units::ms_to_s(50.5), 1700000000, "spiderflow-probe"});
    return s;
}

std::string field_of_refusal(const std::string& text, std::shared_ptr<const Topology> topo = aws4()) {
    try {
        site_state_from_json(text, std::move(topo), "snap.json");
    } catch (const InputError& e) {
        EXPECT_EQ(e.source(), "snap.json");
        return e.field();
    }
    ADD_FAILURE() << "snapshot accepted";
    return "";
}

TEST(SiteDeltaJson, EveryKindRoundTrips) {
    const std::vector<SiteDelta> deltas = {
        NodeStateChanged{{"oregon", "or-gpu003"}, NodeState::drained, "bad fan", std::nullopt},
        NodeStateChanged{{"oregon", "or-gpu003"}, NodeState::up, "", std::vector<std::string>{"ib", "nvme"}},
        JobAllocated{{"j1", 10, kForever, {share("oregon", "or-gpu001", 8, 16), share("ohio", "oh-gpu002", 2)}}},
        JobReleased{"j1"},
        ReservationAdded{{"r1", -5, 50, {share("london", "ld-gpu012", 1)}}},
        ReservationRemoved{"r1"},
        LinkMeasured{{"oregon", "ohio", units::gbps_to_Bps(0.75), units::ms_to_s(48), 42, "probe"}},
    };
    for (const SiteDelta& d : deltas) {
        const std::string text = delta_to_json(d);
        const SiteDelta back = delta_from_json(text);
        EXPECT_EQ(delta_to_json(back), text);
        if (!std::holds_alternative<LinkMeasured>(d)) {  // a measurement's figures are rounded
            EXPECT_TRUE(back == d) << text;
        }
    }
    const std::string open = delta_to_json(deltas[2]);
    EXPECT_NE(open.find("\"delta\":\"job_allocated\""), std::string::npos) << open;
    EXPECT_NE(open.find("\"end\":null"), std::string::npos) << open;
    const auto link = std::get<LinkMeasured>(delta_from_json(delta_to_json(deltas.back()))).measurement;
    EXPECT_NEAR(link.bandwidth_Bps, units::gbps_to_Bps(0.75), 1e-3);
    EXPECT_NEAR(link.latency_s, 0.048, 1e-12);
}

TEST(SiteDeltaJson, ReadingIsStrict) {
    const auto field = [](const std::string& text) {
        try {
            delta_from_json(text, "delta");
        } catch (const InputError& e) {
            return e.field();
        }
        return std::string("(accepted)");
    };
    EXPECT_EQ(field(R"({"delta":"job_released","job":"j","color":"red"})"), "color");
    EXPECT_EQ(field(R"({"delta":"job_moved","job":"j"})"), "delta");
    EXPECT_EQ(field(R"({"job":"j"})"), "delta");
    EXPECT_EQ(field(R"({"delta":"job_allocated","job":"j","start":0,"end":1,"nodes":[{"cluster":"a","node":"n","gpus":1,"x":1}]})"),
              "nodes[0].x");
    EXPECT_EQ(field(R"({"delta":"job_allocated","job":"j","start":"now","end":1,"nodes":[]})"), "start");
    EXPECT_EQ(field(R"({"delta":"node_state_changed","cluster":"a","node":"n","state":"sleepy"})"), "state");
    EXPECT_EQ(field(R"({"delta":"link_measured","a":"x","b":"y","gbps":1,"latency_ms":1,"timestamp":0})"), "source");
    EXPECT_THROW(delta_from_json("{not json"), InputError);
}

TEST(SiteSnapshot, RoundTripKeepsEverythingAndTheEpoch) {
    const SiteState s = busy_state();
    const std::string text = site_state_to_json(s);
    EXPECT_NE(text.find("\"spiderflow_site_state_version\": 1"), std::string::npos);
    EXPECT_NE(text.find(topology_hash(*aws4())), std::string::npos);
    const SiteState back = site_state_from_json(text, aws4());
    EXPECT_EQ(site_state_to_json(back), text);
    EXPECT_EQ(back.epoch(), s.epoch());
    EXPECT_EQ(back.jobs(), s.jobs());
    EXPECT_EQ(back.reservations(), s.reservations());
    for (SiteTime t : {SiteTime{0}, SiteTime{200}, SiteTime{6000}}) {
        for (int c = 0; c < 4; ++c) EXPECT_EQ(back.free_gpus(c, t), s.free_gpus(c, t)) << c << " at " << t;
    }
    const NodeRef drained = back.find({"oregon", "or-gpu001"});
    EXPECT_EQ(back.use(drained).state, NodeState::drained);   // drained with its job still on it
    EXPECT_EQ(back.use(drained).reason, "ECC errors");
    EXPECT_EQ(back.use(drained).features, std::vector<std::string>{"ib"});
    const auto link = back.effective_link(0, 2);
    ASSERT_TRUE(link && link->measured);
    EXPECT_EQ(link->source, "spiderflow-probe");
    // An empty state writes and reads too.
    const SiteState empty(aws4());
    EXPECT_EQ(site_state_to_json(site_state_from_json(site_state_to_json(empty), aws4())), site_state_to_json(empty));
}

TEST(SiteSnapshot, ReadingIsStrict) {
    const std::string good = site_state_to_json(busy_state());
    const auto edit = [&](const std::string& from, const std::string& to) {
        std::string t = good;
        const auto at = t.find(from);
        EXPECT_NE(at, std::string::npos) << from;
        if (at != std::string::npos) t.replace(at, from.size(), to);
        return t;
    };
    EXPECT_EQ(field_of_refusal(edit("\"epoch\"", "\"colour\": 1, \"epoch\"")), "colour");
    EXPECT_EQ(field_of_refusal(edit("\"job\": \"open-ended\"", "\"job\": \"open-ended\", \"prio\": 3")), "jobs[0].prio");
    EXPECT_EQ(field_of_refusal(edit("\"spiderflow_site_state_version\": 1", "\"spiderflow_site_state_version\": 2")),
              "spiderflow_site_state_version");
    EXPECT_EQ(field_of_refusal(edit("\"spiderflow_site_state_version\": 1,", "")), "spiderflow_site_state_version");
    EXPECT_EQ(field_of_refusal(edit("\"state\": \"down\"", "\"state\": \"asleep\"")), "nodes[1].state");
    // Replayed through SiteState's checks: an over-allocation is refused, naming the entry.
    EXPECT_EQ(field_of_refusal(edit("\"gpus\": 4", "\"gpus\": 9")), "jobs[0]");
    EXPECT_EQ(field_of_refusal(edit("\"node\": \"oh-gpu001\"", "\"node\": \"oh-gpu999\"")), "jobs[0]");
}

TEST(SiteSnapshot, AnotherTopologysSnapshotIsRefused) {
    const std::string text = site_state_to_json(busy_state());
    // Same names, one GPU fewer on one node: the content differs, so the hash does.
    Topology changed = *aws4();
    changed.clusters[1].nodes[0].gpus = 4;
    changed.clusters[1].nodes[0].nvlink_domain_size = 4;
    changed.finalize("changed");
    EXPECT_NE(topology_hash(changed), topology_hash(*aws4()));
    EXPECT_EQ(field_of_refusal(text, std::make_shared<const Topology>(changed)), "topology.hash");
    // A new nominal link figure is no other topology: the overlay refers to nodes, not figures.
    Topology refigured = *aws4();
    refigured.links[0].bandwidth_Bps *= 2;
    refigured.finalize("refigured");
    EXPECT_EQ(topology_hash(refigured), topology_hash(*aws4()));
    // The same content read again hashes equal.
    EXPECT_EQ(topology_hash(read_topology(src_path("contrib/topologies/aws-4.json"))), topology_hash(*aws4()));
}

TEST(NodeList, HostlistsClustersAndUniqueNames) {
    const auto shares = parse_node_shares("oregon:or-gpu[001-003]=8,or-gpu010=4,ohio:oh-gpu001=2", *aws4());
    ASSERT_EQ(shares.size(), 5u);
    EXPECT_EQ(shares[0], share("oregon", "or-gpu001", 8));
    EXPECT_EQ(shares[2], share("oregon", "or-gpu003", 8));
    EXPECT_EQ(shares[3], share("oregon", "or-gpu010", 4));
    EXPECT_EQ(shares[4], share("ohio", "oh-gpu001", 2));
    EXPECT_EQ(parse_node_shares("ld-gpu007=1", *aws4())[0].node.cluster, "london");
    EXPECT_EQ(parse_node_name("va-gpu002", *aws4()).cluster, "virginia");
    EXPECT_THROW(parse_node_shares("oregon:or-gpu001", *aws4()), InputError);
    EXPECT_THROW(parse_node_shares("oregon:or-gpu001=x", *aws4()), InputError);
    EXPECT_THROW(parse_node_shares("mars:or-gpu001=1", *aws4()), InputError);
    EXPECT_THROW(parse_node_name("nosuch", *aws4()), InputError);
}

}  // namespace
}  // namespace spiderflow
