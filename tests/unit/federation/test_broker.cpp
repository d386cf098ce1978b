// The broker's logic without HTTP: parts per cluster and their merge, tokens, config, store.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "common/site/site_json.h"
#include "common/topology/reader.h"
#include "common/util/errors.h"
#include "federation/brokerd/broker_store.h"
#include "federation/brokerd/brokerd_conf.h"
#include "federation/brokerd/federation_state.h"
#include "federation/brokerd/tokens.h"

using namespace spiderflow;
using namespace spiderflow::broker;

namespace {

std::shared_ptr<const Topology> aws4() {
    const char* src = std::getenv("SF_SRCDIR");
    return std::make_shared<const Topology>(
        read_topology(std::string(src ? src : ".") + "/contrib/topologies/aws-4.json"));
}

std::string snapshot(const std::shared_ptr<const Topology>& t, void (*fill)(SiteState&)) {
    SiteState s(t);
    fill(s);
    return site_state_to_json(s);
}

}  // namespace

TEST(FederationState, EachClusterWritesOnlyItsOwnPart) {
    const auto t = aws4();
    FederationState f(t);
    f.replace_part("oregon", snapshot(t, [](SiteState& s) { s.allocate("train", {{{"oregon", "or-gpu001"}, 8, 0}}, 0); }), 10);
    f.replace_part("ohio", snapshot(t, [](SiteState& s) { s.allocate("train", {{{"ohio", "oh-gpu001"}, 8, 0}}, 0); }), 11);
    EXPECT_EQ(f.epoch(), 2u);
    EXPECT_EQ(f.updated_at("ohio"), 11);
    // Both clusters call their job "train": the merged view keeps both, named by cluster.
    EXPECT_EQ(f.merged().jobs().count("oregon:train"), 1u);
    EXPECT_EQ(f.merged().jobs().count("ohio:train"), 1u);
    EXPECT_EQ(f.merged().free_gpus(t->cluster_index("oregon"), 0), 120);

    // oregon's part naming an ohio node is refused and changes nothing.
    const std::string foreign = snapshot(t, [](SiteState& s) { s.set_node_state({"ohio", "oh-gpu002"}, NodeState::down); });
    EXPECT_THROW(f.replace_part("oregon", foreign, 12), InputError);
    EXPECT_EQ(f.epoch(), 2u);
    EXPECT_EQ(f.merged().jobs().count("oregon:train"), 1u);
    EXPECT_THROW(f.replace_part("mars", foreign, 12), InputError);
}

TEST(FederationState, DeltasAreAllOrNothingAndStayInTheirCluster) {
    const auto t = aws4();
    FederationState f(t);
    JobAllocated a;
    a.allocation = {"j1", 0, kForever, {{{"oregon", "or-gpu001"}, 8, 0}}};
    JobReleased unknown{"nope"};
    EXPECT_THROW(f.apply_deltas("oregon", {a, unknown}, 5), InputError);
    EXPECT_EQ(f.epoch(), 0u) << "the good first delta is not kept when the second fails";
    EXPECT_TRUE(f.merged().jobs().empty());
    NodeStateChanged other{{"ohio", "oh-gpu001"}, NodeState::drained, "x", std::nullopt};
    EXPECT_THROW(f.apply_deltas("oregon", {other}, 5), InputError);
    f.apply_deltas("oregon", {a}, 6);
    EXPECT_EQ(f.merged().jobs().count("oregon:j1"), 1u);
    EXPECT_EQ(f.epoch(), 1u);
}

TEST(FederationState, TheNewestLinkMeasurementWinsWhicheverEndMeasured) {
    const auto t = aws4();
    FederationState f(t);
    LinkMeasured older{{"oregon", "ohio", 1e9, 0.05, 100, "agent oregon"}};
    LinkMeasured newer{{"ohio", "oregon", 2e9, 0.04, 200, "agent ohio"}};
    f.apply_deltas("oregon", {older}, 1);
    f.apply_deltas("ohio", {newer}, 2);
    const auto& m = f.merged().measured_links();
    ASSERT_EQ(m.size(), 1u);
    EXPECT_EQ(m.begin()->second.source, "agent ohio");
    LinkMeasured foreign{{"virginia", "london", 1e9, 0.05, 300, "x"}};
    EXPECT_THROW(f.apply_deltas("oregon", {foreign}, 3), InputError) << "a link that does not touch oregon";
}

TEST(FederationState, ADrainedNodeKeepsItsJobInTheMergedView) {
    const auto t = aws4();
    FederationState f(t);
    f.replace_part("oregon", snapshot(t, [](SiteState& s) {
                       s.allocate("long", {{{"oregon", "or-gpu003"}, 8, 0}}, 0);
                       s.set_node_state({"oregon", "or-gpu003"}, NodeState::drained, "maintenance");
                   }), 1);
    const SiteState& m = f.merged();
    EXPECT_EQ(m.jobs().count("oregon:long"), 1u);
    EXPECT_EQ(m.use(m.find({"oregon", "or-gpu003"})).state, NodeState::drained);
}

TEST(Tokens, HashedConstantTimeLookupAndStrictFile) {
    const std::string text = "# who may call\ncluster oregon " + token_hash("s3cret") + "\nreader tools " +
                             token_hash("look") + "\n";
    const TokenTable t = TokenTable::parse(text, "tokens");
    EXPECT_EQ(t.size(), 2u);
    ASSERT_TRUE(t.find("s3cret"));
    EXPECT_EQ(t.find("s3cret")->name, "oregon");
    EXPECT_EQ(t.find("s3cret")->role, Caller::Role::cluster);
    EXPECT_EQ(t.find("look")->role, Caller::Role::reader);
    EXPECT_FALSE(t.find("s3cre"));
    EXPECT_FALSE(t.find(""));
    EXPECT_EQ(token_hash("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") << "SHA-256";
    EXPECT_THROW(TokenTable::parse("admin x " + token_hash("a") + "\n", "tokens"), InputError);
    EXPECT_THROW(TokenTable::parse("cluster x s3cret\n", "tokens"), InputError) << "a plain token, not a hash";
    EXPECT_THROW(TokenTable::parse(text + "cluster oregon " + token_hash("b") + "\n", "tokens"), InputError);
}

TEST(BrokerdConf, StrictKeysAndTlsTogether) {
    const BrokerdConf c = parse_brokerd_conf("port = 9000\ndb = /tmp/x.db\nrate_limit = 5\n", "brokerd.conf");
    EXPECT_EQ(c.port, 9000);
    EXPECT_EQ(c.rate_per_s, 5);
    EXPECT_EQ(c.listen, "127.0.0.1");
    try {
        parse_brokerd_conf("prot = 9000\n", "brokerd.conf");
        FAIL();
    } catch (const InputError& e) {
        EXPECT_EQ(e.line(), 1);
        EXPECT_EQ(e.field(), "prot");
    }
    EXPECT_THROW(parse_brokerd_conf("port = 99999\n", "brokerd.conf"), InputError);
    EXPECT_THROW(parse_brokerd_conf("tls_cert = /x.pem\n", "brokerd.conf"), InputError);
}

TEST(SqliteStore, PartsAndEpochSurviveReopening) {
    char dir[] = "/tmp/sf_store_XXXXXX";
    ASSERT_NE(::mkdtemp(dir), nullptr);
    const std::string db = std::string(dir) + "/broker.db";
    {
        auto store = open_store(db);
        store->save_part({"oregon", "{\"a\":1}", 10}, 1);
        store->save_part({"ohio", "{\"b\":2}", 11}, 2);
        store->save_part({"oregon", "{\"a\":3}", 12}, 3);
    }
    auto store = open_store("sqlite:" + db);
    uint64_t epoch = 0;
    const auto parts = store->load_parts(&epoch);
    EXPECT_EQ(epoch, 3u);
    ASSERT_EQ(parts.size(), 2u);
    EXPECT_EQ(parts[0].cluster, "ohio");
    EXPECT_EQ(parts[1].snapshot_json, "{\"a\":3}");
    EXPECT_EQ(parts[1].updated_at, 12);
    EXPECT_THROW(open_store("mysql://db/spiderflow"), std::runtime_error);
    std::system(("rm -rf " + std::string(dir)).c_str());
}

// A write the store refused is undone: only the written cluster's part comes back.
TEST(FederationState, UndoPutsBackOnlyTheWrittenPart) {
    const auto t = aws4();
    FederationState f(t);
    f.replace_part("ohio", snapshot(t, [](SiteState& s) { s.allocate("keep", {{{"ohio", "oh-gpu001"}, 8, 0}}, 0); }), 1);
    auto point = f.undo_point("oregon");
    f.replace_part("oregon", snapshot(t, [](SiteState& s) { s.allocate("gone", {{{"oregon", "or-gpu001"}, 8, 0}}, 0); }), 2);
    f.undo(std::move(point));
    EXPECT_EQ(f.epoch(), 1u);
    EXPECT_EQ(f.updated_at("oregon"), 0);
    EXPECT_EQ(f.merged().jobs().count("oregon:gone"), 0u);
    EXPECT_EQ(f.merged().jobs().count("ohio:keep"), 1u);
}
