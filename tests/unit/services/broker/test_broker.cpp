// The broker's logic without HTTP: parts per cluster and their merge, tokens, config, store.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "common/site/site_json.h"
#include "common/topology/reader.h"
#include "common/util/errors.h"
#include "services/broker/broker_store.h"
#include "services/broker/brokerd_conf.h"
#include "services/broker/federation_state.h"
#include "services/broker/lease_keeper.h"
#include "services/broker/tokens.h"

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
    const BrokerdConf kept = parse_brokerd_conf("keep_finished = 50\nkeep_finished_s = 3600\n", "brokerd.conf");
    EXPECT_EQ(kept.coalloc.keep_finished, 50);
    EXPECT_EQ(kept.coalloc.keep_finished_s, 3600);
    EXPECT_THROW(parse_brokerd_conf("keep_finished = -1\n", "brokerd.conf"), InputError);
}

TEST(SqliteStore, PartsAndEpochSurviveReopening) {
    char dir[] = "/tmp/sf_store_XXXXXX";
    ASSERT_NE(::mkdtemp(dir), nullptr);
    const std::string db = std::string(dir) + "/broker.db";
    {
        auto store = open_store(db);
        store->save_part({"oregon", "{\"a\":1}", 10, 1}, "");
        store->save_part({"ohio", "{\"b\":2}", 11, 2}, "");
        store->save_part({"oregon", "{\"a\":3}", 12, 3}, "");
        EXPECT_FALSE(store->shared());
        std::string who;
        EXPECT_TRUE(store->hold_lease("anyone", 5, &who));
    }
    auto store = open_store("sqlite:" + db);
    uint64_t epoch = 0;
    const auto parts = store->load_parts(0, &epoch);
    EXPECT_EQ(epoch, 3u);
    ASSERT_EQ(parts.size(), 2u);
    EXPECT_EQ(parts[0].cluster, "ohio");
    EXPECT_EQ(parts[1].snapshot_json, "{\"a\":3}");
    EXPECT_EQ(parts[1].updated_at, 12);
    EXPECT_EQ(parts[1].epoch, 3u);
    // A standby following from epoch 2 reads only what was written after it.
    const auto since2 = store->load_parts(2, &epoch);
    ASSERT_EQ(since2.size(), 1u);
    EXPECT_EQ(since2[0].cluster, "oregon");
    EXPECT_TRUE(store->load_parts(3, &epoch).empty());
    EXPECT_EQ(store->stored_epoch(), 3u);
    EXPECT_THROW(open_store("mysql://db/spiderflow"), std::runtime_error);  // no user
    EXPECT_THROW(open_store("postgres://u@db/spiderflow"), std::runtime_error);
    try {
        open_store(db, StoreOptions{"/etc/spiderflow/db-password", ""});
        ADD_FAILURE() << "a password file beside a SQLite file was accepted";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("db = mysql://"), std::string::npos) << e.what();
    }
    std::system(("rm -rf " + std::string(dir)).c_str());
}

// One broker per SQLite file: while one store holds the file, a second open is refused naming
// the first's owner; once the first is closed (or its process died) the file opens again.
TEST(SqliteStore, ASecondBrokerOnTheSameFileIsRefusedNamingTheFirst) {
    char dir[] = "/tmp/sf_store_XXXXXX";
    ASSERT_NE(::mkdtemp(dir), nullptr);
    const std::string db = std::string(dir) + "/broker.db";
    {
        auto first = open_store(db, StoreOptions{"", "head:9000 pid 4242"});
        try {
            open_store("sqlite:" + db, StoreOptions{"", "head:9001 pid 4343"});
            ADD_FAILURE() << "a second store opened a file another one holds";
        } catch (const StoreInUse& e) {
            EXPECT_NE(std::string(e.what()).find("in use by another broker (head:9000 pid 4242"), std::string::npos)
                << e.what();
        }
        first->save_part({"oregon", "{}", 1, 1}, "");  // the refused open left the first one working
    }
    EXPECT_NO_THROW(open_store(db, StoreOptions{"", "head:9001 pid 4343"}));
    std::system(("rm -rf " + std::string(dir)).c_str());
}

TEST(MariadbUrl, PartsAndClearErrors) {
    MariadbLocation l = parse_mariadb_url("mysql://spiderflow@db.example.org:3307/broker");
    EXPECT_EQ(l.user, "spiderflow");
    EXPECT_EQ(l.host, "db.example.org");
    EXPECT_EQ(l.port, 3307u);
    EXPECT_EQ(l.database, "broker");
    EXPECT_TRUE(l.socket.empty());
    l = parse_mariadb_url("mariadb://root@localhost/sf?socket=/run/mysqld/mysqld.sock");
    EXPECT_EQ(l.port, 3306u);
    EXPECT_EQ(l.socket, "/run/mysqld/mysqld.sock");
    l = parse_mariadb_url("mysql://u@[fd00::5]:3310/sf");
    EXPECT_EQ(l.host, "fd00::5");
    EXPECT_EQ(l.port, 3310u);
    const auto why = [](const std::string& url) {
        try {
            parse_mariadb_url(url);
        } catch (const std::runtime_error& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    EXPECT_NE(why("mysql://u:secret@db/sf").find("db_password_file"), std::string::npos);
    EXPECT_NE(why("mysql://db/sf").find("no user"), std::string::npos);
    EXPECT_NE(why("mysql://u@db").find("no database"), std::string::npos);
    EXPECT_NE(why("mysql://u@db:0/sf").find("bad port"), std::string::npos);
    EXPECT_NE(why("mysql://u@db:33o6/sf").find("bad port"), std::string::npos);
    EXPECT_NE(why("mysql://u@db/sf?ssl=1").find("socket=PATH"), std::string::npos);
    EXPECT_NE(why("mysql://u@/sf").find("no host"), std::string::npos);
}

TEST(BrokerdConf, LeaseAndPasswordFile) {
    const BrokerdConf c = parse_brokerd_conf(
        "db = mysql://sf@db/broker\ndb_password_file = /etc/spiderflow/db-password\nlease_ttl = 6\n", "brokerd.conf");
    EXPECT_EQ(c.lease_ttl_s, 6);
    EXPECT_EQ(c.db_password_file, "/etc/spiderflow/db-password");
    EXPECT_EQ(parse_brokerd_conf("", "brokerd.conf").lease_ttl_s, 10);
    EXPECT_THROW(parse_brokerd_conf("lease_ttl = 1\n", "brokerd.conf"), InputError);
}

namespace {

// A shared store in memory: one lease, a clock the test moves, and a switch that makes the
// database unreachable.
struct FakeShared : BrokerStore {
    struct World {
        std::string holder;
        int64_t expires = 0, now = 0;
        uint64_t epoch = 0;
        bool down = false;
    };
    explicit FakeShared(std::shared_ptr<World> w) : w(std::move(w)) {}
    std::vector<StoredPart> load_parts(uint64_t, uint64_t* epoch) override {
        *epoch = w->epoch;
        return {};
    }
    uint64_t stored_epoch() override { return w->epoch; }
    void save_parts(const std::vector<StoredPart>&, uint64_t, const std::string&) override {}
    std::vector<StoredXJob> load_xjobs() override { return {}; }
    void save_xjobs(const std::vector<StoredXJob>&, const std::string&) override {}
    uint64_t stored_xjobs_version() override { return 0; }
    bool shared() const override { return true; }
    bool hold_lease(const std::string& holder, int ttl_s, std::string* current) override {
        if (w->down) throw std::runtime_error("server gone");
        if (w->holder == holder || w->expires <= w->now) {
            w->holder = holder;
            w->expires = w->now + ttl_s;
            return true;
        }
        *current = w->holder;
        return false;
    }
    void release_lease(const std::string& holder) override {
        if (w->holder == holder) w->expires = 0;
    }
    std::string describe() const override { return "fake"; }
    std::shared_ptr<World> w;
};

struct Watch {
    int activations = 0, standbys = 0;
    uint64_t followed = 0;
    std::string leader;
    LeaseKeeper::Hooks hooks() {
        return {[this] { ++activations; }, [this](const std::string& h) { ++standbys, leader = h; },
                [this](uint64_t e) { followed = e; }};
    }
};

}  // namespace

// Two brokers on one store: one decides; the other follows its epoch, takes over only once the
// lease has run out (or at once when it was given up), and a broker that cannot reach the
// database stops deciding.
TEST(LeaseKeeper, OneActiveTakeoverOnExpiryOrReleaseAndStepDownWhenCutOff) {
    auto world = std::make_shared<FakeShared::World>();
    Watch wa, wb;
    LeaseKeeper a(std::make_unique<FakeShared>(world), "a:8760 pid 1", 10, wa.hooks());
    LeaseKeeper b(std::make_unique<FakeShared>(world), "b:8760 pid 2", 10, wb.hooks());
    a.round();
    b.round();
    EXPECT_TRUE(a.active());
    EXPECT_FALSE(b.active());
    EXPECT_EQ(wa.activations, 1);
    EXPECT_EQ(wb.standbys, 1);
    EXPECT_EQ(wb.leader, "a:8760 pid 1");
    world->epoch = 7;
    world->now = 9;  // a renews in time: b stays standby, and said so once
    a.round();
    b.round();
    EXPECT_FALSE(b.active());
    EXPECT_EQ(wb.standbys, 1);
    EXPECT_EQ(wb.followed, 7u);
    world->now = 30;  // a went silent past its lease
    b.round();
    EXPECT_TRUE(b.active());
    EXPECT_EQ(wb.activations, 1);
    a.round();  // a comes back: it is the standby now
    EXPECT_FALSE(a.active());
    EXPECT_EQ(wa.standbys, 1);
    b.stop();  // a clean stop gives the lease up: a takes over in its next round
    a.round();
    EXPECT_TRUE(a.active());
    EXPECT_EQ(wa.activations, 2);
    world->down = true;  // the database is unreachable: a stops deciding at once
    a.round();
    EXPECT_FALSE(a.active());
    a.lost();
    world->down = false;
    a.round();
    EXPECT_TRUE(a.active());
    EXPECT_EQ(wa.activations, 3);
    EXPECT_LE(a.period_s(), 1.0);
}
