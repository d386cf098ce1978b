// The agent's logic without Slurm or a broker: from an observation to the cluster's part, the
// deltas between two parts, its config, its links file, and the GPU count in Slurm's GRES detail.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <random>
#include <string>

#include "common/site/site_json.h"
#include "common/topology/reader.h"
#include "common/util/errors.h"
#include "services/agent/agent.h"
#include "services/agent/agent_conf.h"
#include "services/agent/agent_reload.h"
#include "services/agent/part_builder.h"
#include "common/site/site_diff.h"
#include "services/agent/slurm_observer.h"

using namespace spiderflow;
using namespace spiderflow::agent;

namespace {

std::shared_ptr<const Topology> aws4() {
    const char* src = std::getenv("SF_SRCDIR");
    return std::make_shared<const Topology>(read_topology(std::string(src ? src : ".") + "/contrib/topologies/aws-4.json"));
}

std::string node(int i) {
    char b[16];
    std::snprintf(b, sizeof b, "or-gpu%03d", i);
    return b;
}

// Every oregon node up, as Slurm lists them.
ClusterObservation all_up() {
    ClusterObservation o;
    o.cluster = "oregon";
    for (int i = 1; i <= 16; ++i) o.nodes.push_back({node(i), NodeState::up, "", {}});
    return o;
}

}  // namespace

TEST(GresDetail, GpuCountWithAndWithoutType) {
    EXPECT_EQ(gpus_in_gres_detail("gpu:4(IDX:0-3)"), 4);
    EXPECT_EQ(gpus_in_gres_detail("gpu:h100:8(IDX:0-7)"), 8);
    EXPECT_EQ(gpus_in_gres_detail("nic:1,gpu:a100:2(IDX:0,2)"), 2);
    EXPECT_EQ(gpus_in_gres_detail("nic:1"), -1);
    EXPECT_EQ(gpus_in_gres_detail(""), -1);
    EXPECT_EQ(gpus_in_gres_detail("gpu:x(IDX:0)"), -1);
}

TEST(PartBuilder, JobsReservationsAndStatesOfOneCluster) {
    const auto t = aws4();
    ClusterObservation o = all_up();
    o.nodes[1] = {node(2), NodeState::drained, "bad DIMM", {}};
    o.nodes[2] = {node(3), NodeState::down, "not responding", {}};
    // A job still running on the node that was drained under it.
    o.jobs.push_back({"101", 100, 4000, {{node(1), 8, 16}, {node(2), 4, 8}}});
    o.reservations.push_back({"maint", 5000, 9000, {{node(4), -1, 0}, {node(5), -1, 0}}});
    std::vector<std::string> notes;
    const SiteState p = build_part(t, "oregon", o, {}, &notes);
    EXPECT_TRUE(notes.empty());
    const int oregon = t->cluster_index("oregon");
    EXPECT_EQ(p.jobs().at("101").total_gpus(), 12);
    EXPECT_EQ(p.reservations().at("maint").total_gpus(), 16);   // whole nodes
    EXPECT_EQ(p.use(p.find({"oregon", node(2)})).state, NodeState::drained);
    EXPECT_EQ(p.use(p.find({"oregon", node(2)})).reason, "bad DIMM");
    // 128 GPUs - node 1 busy (8) - nodes 2 and 3 out (16) = 104 free at t=200.
    EXPECT_EQ(p.free_gpus(oregon, 200), 104);
    // At 6000 job 101 has ended and the maintenance reservation holds nodes 4 and 5.
    EXPECT_EQ(p.free_gpus(oregon, 6000), 128 - 16 - 16);
    // Nothing of another cluster is touched: the broker would refuse the part otherwise.
    EXPECT_EQ(p.free_gpus(t->cluster_index("ohio"), 200), 8 * static_cast<int>(t->clusters[static_cast<size_t>(t->cluster_index("ohio"))].nodes.size()));
}

// A spiderflow.conf that does not parse turns SpiderFlow off on the cluster: the part the agent
// publishes offers the federation no node of it (every node drained, saying why), until the
// file is fixed; the log says both.
TEST(Agent, AClusterWhoseSpiderflowIsOffIsOfferedAsDrainedUntilItIsFixed) {
    char dir[] = "/tmp/sf-agent-off.XXXXXX";
    ASSERT_NE(::mkdtemp(dir), nullptr);
    const std::string conf = std::string(dir) + "/spiderflow.conf";
    auto write = [&](const std::string& text) { FILE* f = std::fopen(conf.c_str(), "w"); std::fputs(text.c_str(), f); std::fclose(f); };
    write("cluster = oregon\ncross_stie = yes\n");
    AgentSetup setup;
    setup.conf.spiderflow_conf = conf;
    setup.topology = aws4();
    setup.cluster = "oregon";
    std::vector<std::string> log;
    Agent agent(setup, BrokerClient(BrokerEndpoint{"http://127.0.0.1:9", "t", ""}), [](SiteTime) { return all_up(); },
                [&](const std::string& s) { log.push_back(s); });
    const int oregon = setup.topology->cluster_index("oregon");
    SiteState off = site_state_from_json(agent.preview(100), setup.topology, "preview");
    EXPECT_EQ(off.free_gpus(oregon, 100), 0);
    EXPECT_NE(off.use(off.find({"oregon", node(1)})).reason.find("SpiderFlow is off on oregon"), std::string::npos);
    ASSERT_FALSE(log.empty());
    EXPECT_NE(log.back().find("cross_stie"), std::string::npos) << log.back();
    write("cluster = oregon\ncross_site = yes\n");
    SiteState on = site_state_from_json(agent.preview(200), setup.topology, "preview");
    EXPECT_EQ(on.free_gpus(oregon, 200), 128);
    EXPECT_NE(log.back().find("SpiderFlow is on again on oregon"), std::string::npos) << log.back();
    std::remove(conf.c_str());
    ::rmdir(dir);
}

// A link this agent's probe measured is published again after the agent restarts (it was
// back to its declared figure until the next probe), unless it is older than
// measured_link_max_age; without a file to keep it in nothing is kept.
TEST(Agent, ItsMeasuredLinksSurviveARestartWithinTheirMaxAge) {
    char dir[] = "/tmp/sf-agent-links.XXXXXX";
    ASSERT_NE(::mkdtemp(dir), nullptr);
    AgentSetup setup;
    setup.conf.spiderflow_conf = std::string(dir) + "/no-spiderflow.conf";
    setup.topology = aws4();
    setup.cluster = "oregon";
    setup.measured_links_path = measured_links_path(std::string(dir) + "/federation-state.json");
    setup.measured_link_max_age_s = 3600;
    std::vector<std::string> log;
    auto make = [&](const AgentSetup& s) {
        return std::make_unique<Agent>(s, BrokerClient(BrokerEndpoint{"http://127.0.0.1:9", "t", ""}),
                                       [](SiteTime) { return all_up(); }, [&](const std::string& l) { log.push_back(l); });
    };
    auto measured = [&](Agent& a, SiteTime now) {
        return site_state_from_json(a.preview(now), setup.topology, "preview").measured_links();
    };
    {
        auto first = make(setup);
        EXPECT_TRUE(measured(*first, 1000).empty());
        first->add_measurement({"oregon", "ohio", 1.2e8, 0.03, 1000, "spiderflow-probe"});
        ASSERT_EQ(measured(*first, 1001).size(), 1u);
    }
    auto again = make(setup);  // the agent restarted
    const auto back = measured(*again, 2000);
    ASSERT_EQ(back.size(), 1u);
    EXPECT_DOUBLE_EQ(back.begin()->second.bandwidth_Bps, 1.2e8);
    EXPECT_EQ(back.begin()->second.timestamp, 1000);
    EXPECT_NE(log.back().find("restored 1 measured link figure(s)"), std::string::npos) << log.back();
    // Past measured_link_max_age: left out, and said so.
    auto late = make(setup);
    EXPECT_TRUE(measured(*late, 1000 + 3601).empty());
    EXPECT_NE(log.back().find("older than measured_link_max_age"), std::string::npos) << log.back();
    AgentSetup none = setup;
    none.measured_links_path.clear();
    EXPECT_TRUE(measured(*make(none), 2000).empty());
    std::system(("rm -rf " + std::string(dir)).c_str());
}

TEST(PartBuilder, DisagreementsWithTheTopologyAreFittedAndNoted) {
    const auto t = aws4();
    ClusterObservation o = all_up();
    o.nodes.pop_back();                                          // or-gpu016 missing from Slurm
    o.nodes.push_back({"or-gpu099", NodeState::up, "", {}});     // not in the topology
    o.jobs.push_back({"7", 0, kForever, {{node(1), 8, 0}}});
    o.jobs.push_back({"8", 0, kForever, {{node(1), 8, 0}}});     // Slurm says 16 GPUs on an 8-GPU node
    o.reservations.push_back({"r", 0, 100, {{node(6), -1, 0}, {node(7), -1, 0}}, 12});
    std::vector<std::string> notes;
    const SiteState p = build_part(t, "oregon", o, {}, &notes);
    EXPECT_EQ(p.use(p.find({"oregon", "or-gpu016"})).state, NodeState::down);
    ASSERT_EQ(notes.size(), 3u);
    EXPECT_NE(notes[0].find("or-gpu099"), std::string::npos);
    EXPECT_NE(notes[1].find("or-gpu016"), std::string::npos);
    EXPECT_NE(notes[2].find("job 8"), std::string::npos);
    // Job 8 kept with the GPUs that fit (none), so the node's 8 GPUs are not counted twice.
    EXPECT_EQ(p.used_gpus(p.find({"oregon", node(1)}), 1), 8);
    // A reservation's TRES GPU count spread over its nodes in order: 8 + 4.
    EXPECT_EQ(p.reservations().at("r").nodes[0].gpus, 8);
    EXPECT_EQ(p.reservations().at("r").nodes[1].gpus, 4);
    EXPECT_THROW(build_part(t, "atlantis", o, {}, &notes), InputError);
}

TEST(PartBuilder, OnlyLinksTouchingTheClusterArePublished) {
    const auto t = aws4();
    std::vector<std::string> notes;
    const std::vector<LinkMeasurement> links = {{"oregon", "ohio", 2e8, 0.05, 100, "probe"},
                                                {"virginia", "ohio", 2e8, 0.01, 100, "probe"}};
    const SiteState p = build_part(t, "oregon", all_up(), links, &notes);
    EXPECT_EQ(p.measured_links().size(), 1u);
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_NE(notes[0].find("virginia-ohio"), std::string::npos);
}

// Random walks of a cluster's life: whatever changed between two looks, the deltas diff_parts
// gives apply in order and reach the new part exactly.
TEST(PartDiff, DeltasReachTheNewPartOverRandomWalks) {
    const auto t = aws4();
    std::mt19937 rng(7);
    ClusterObservation o = all_up();
    std::vector<std::string> notes;
    SiteState before = build_part(t, "oregon", o, {}, &notes);
    int next_job = 1;
    for (int step = 0; step < 300; ++step) {
        ClusterObservation n = o;
        const int what = static_cast<int>(rng() % 6);
        const int k = static_cast<int>(rng() % 16);
        if (what == 0) {
            n.nodes[static_cast<size_t>(k)].state = static_cast<NodeState>(rng() % 3);
            n.nodes[static_cast<size_t>(k)].reason = n.nodes[static_cast<size_t>(k)].state == NodeState::up ? "" : "why " + std::to_string(step);
        } else if (what == 1 && !n.jobs.empty()) {
            n.jobs.erase(n.jobs.begin() + static_cast<long>(rng() % n.jobs.size()));
        } else if (what == 2 && !n.jobs.empty()) {
            n.jobs[rng() % n.jobs.size()].end = 10000 + step;          // time limit changed
        } else if (what == 3) {
            n.reservations.clear();
            if (rng() % 2) n.reservations.push_back({"r" + std::to_string(step), 20000, 30000, {{node(k + 1), -1, 0}}});
        } else if (what == 4) {
            n.nodes[static_cast<size_t>(k)].features = {"f" + std::to_string(rng() % 3)};
        } else {
            n.jobs.push_back({std::to_string(next_job++), step, kForever, {{node(k + 1), 1 + static_cast<int>(rng() % 2), 1}}});
        }
        notes.clear();
        SiteState after = build_part(t, "oregon", n, {}, &notes);
        const auto deltas = diff_parts(before, after);
        if (!deltas_reach(before, deltas, after)) {
            SiteState replay = before.clone();
            std::string trace;
            for (const SiteDelta& d : deltas) {
                trace += delta_to_json(d) + "\n";
                try {
                    replay.apply(d);
                } catch (const InputError& e) {
                    trace += std::string("  refused: ") + e.what() + "\n";
                }
            }
            FAIL() << "step " << step << ":\n" << trace;
        }
        // Releasing a job build_part could not place would be refused by the broker: only send
        // what the new part really holds.
        o = n;
        before = std::move(after);
    }
    EXPECT_TRUE(diff_parts(before, before.clone()).empty());
}

TEST(PartDiff, AJobOnANodeDrainedSinceIsAddedBeforeTheDrain) {
    const auto t = aws4();
    std::vector<std::string> notes;
    const SiteState before = build_part(t, "oregon", all_up(), {}, &notes);
    ClusterObservation o = all_up();
    o.jobs.push_back({"5", 10, kForever, {{node(3), 8, 1}}});
    o.nodes[2] = {node(3), NodeState::drained, "maintenance", {}};
    const SiteState after = build_part(t, "oregon", o, {}, &notes);
    const auto deltas = diff_parts(before, after);
    ASSERT_EQ(deltas.size(), 2u);
    EXPECT_TRUE(std::holds_alternative<JobAllocated>(deltas[0]));
    EXPECT_TRUE(std::holds_alternative<NodeStateChanged>(deltas[1]));
    EXPECT_TRUE(deltas_reach(before, deltas, after));
}

TEST(AgentConf, StrictKeysAndSaneIntervals) {
    const AgentConf c = parse_agent_conf("broker = https://b:8760\ninterval = 2\n", "agent.conf");
    EXPECT_EQ(c.broker, "https://b:8760");
    EXPECT_DOUBLE_EQ(c.interval_s, 2);
    EXPECT_EQ(c.spiderflow_conf, "/etc/slurm/spiderflow.conf");
    EXPECT_THROW(parse_agent_conf("broker = x\nintreval = 2\n", "agent.conf"), InputError);
    EXPECT_THROW(parse_agent_conf("interval = 2\n", "agent.conf"), InputError);            // no broker
    EXPECT_THROW(parse_agent_conf("broker = x\ninterval = 0\n", "agent.conf"), InputError);
    EXPECT_THROW(parse_agent_conf("broker = x\ninterval = 60\nsnapshot_interval = 30\n", "agent.conf"), InputError);
    EXPECT_EQ(c.wan_address, "%a");
    EXPECT_EQ(parse_agent_conf("broker = x\nwan_address = %n.gpu.example.org\n", "agent.conf").wan_address, "%n.gpu.example.org");
    EXPECT_THROW(parse_agent_conf("broker = x\nwan_address = %n;rm -rf /\n", "agent.conf"), InputError);
    EXPECT_THROW(parse_agent_conf("broker = x\nwan_address = %x.example.org\n", "agent.conf"), InputError);
    EXPECT_EQ(parse_agent_conf("broker = x\ndefault_time_limit = 7200\n", "agent.conf").default_time_limit_s, 7200);
}

TEST(LinksFile, LinkMeasuredLinesOnly) {
    const std::string line =
        R"({"delta":"link_measured","a":"oregon","b":"ohio","gbps":1.5,"latency_ms":48,"timestamp":100,"source":"iperf3"})";
    try {
        const auto links = parse_links_file("# from the probe\n\n" + line + "\n", "links");
        ASSERT_EQ(links.size(), 1u);
        EXPECT_EQ(links[0].source, "iperf3");
    } catch (const InputError& e) {
        FAIL() << e.what();
    }
    EXPECT_THROW(parse_links_file(R"({"delta":"job_released","job":"1"})", "links"), InputError);
    EXPECT_THROW(parse_links_file("not json\n", "links"), InputError);
}

// SIGHUP, as slurmctld's reconfigure: agent.conf read again, each changed key logged, a config
// that does not load refused with the running one kept, and what only a restart takes (the
// cluster, the cache file) not applied.
TEST(AgentReload, ChangesAreLoggedABadConfigKeepsTheRunningOne) {
    LoadedAgent running;
    running.setup.conf = parse_agent_conf("broker = https://b:8760\ninterval = 5\n", "agent.conf");
    running.setup.cluster = "oregon";
    running.setup.cache_path = "/var/lib/spiderflow/federation-state.json";
    running.setup.topology = aws4();
    running.endpoint.token = "t1";
    std::vector<std::string> log;
    const auto logged = [&](const std::string& l) { log.push_back(l); };

    LoadedAgent edited = running;
    edited.setup.conf = parse_agent_conf("broker = https://b:8760\ninterval = 2\npart_users = alice, bob\n", "agent.conf");
    edited.setup.topology = nullptr;  // a running agent keeps its topology
    const auto applied = reload_agent(running, [&] { return edited; }, logged);
    ASSERT_TRUE(applied.has_value());
    EXPECT_DOUBLE_EQ(applied->setup.conf.interval_s, 2);
    EXPECT_EQ(applied->setup.topology, running.setup.topology);
    EXPECT_EQ(log, (std::vector<std::string>{"SIGHUP: interval: 5 s -> 2 s", "SIGHUP: part_users: (any) -> alice,bob"}));

    log.clear();
    const auto bad = reload_agent(running, []() -> LoadedAgent {
        return {parse_agent_conf("broker = x\nintreval = 2\n", "agent.conf"), {}};
    }, logged);
    EXPECT_FALSE(bad.has_value());
    ASSERT_EQ(log.size(), 1u);
    EXPECT_NE(log[0].find("does not load, the running one stays"), std::string::npos) << log[0];
    EXPECT_NE(log[0].find("intreval"), std::string::npos) << log[0];

    log.clear();
    LoadedAgent moved = running;
    moved.setup.cluster = "ohio";
    EXPECT_FALSE(reload_agent(running, [&] { return moved; }, logged).has_value());
    ASSERT_EQ(log.size(), 1u);
    EXPECT_NE(log[0].find("restart the agent"), std::string::npos) << log[0];

    log.clear();
    LoadedAgent rotated = running;
    rotated.endpoint.token = "t2";
    ASSERT_TRUE(reload_agent(running, [&] { return rotated; }, logged).has_value());
    EXPECT_EQ(log, std::vector<std::string>{"SIGHUP: a new token from /etc/spiderflow/agent-token"});
    log.clear();
    ASSERT_TRUE(reload_agent(running, [&] { return running; }, logged).has_value());
    EXPECT_EQ(log, std::vector<std::string>{"SIGHUP: configuration read again, nothing changed"});
}
