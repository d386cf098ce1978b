// Our topology file format: node groups, switches, links in file units, and errors that name
// the field (and the line, for JSON syntax errors).
#include <gtest/gtest.h>

#include "common/topology/spiderflow_reader.h"
#include "common/util/errors.h"
#include "common/util/units.h"

namespace spiderflow {
namespace {

const char* kGood = R"({
  "spiderflow_topology_version": 1,
  "name": "t",
  "comment": "comments are allowed here",
  "clusters": [
    {"name": "or", "region": "us-west-2", "intra_gbps": 400, "intra_latency_ms": 0.005,
     "nodes": [
       {"name_prefix": "or-gpu", "count": 16, "gpus": 8, "gpu_type": "H100-SXM", "nvlink_domain": 8,
        "nics": [{"name": "mlx5_0", "kind": "ib", "gbps": 400}], "switch": "leaf1"},
       {"name": "or-login", "gpus": 0}
     ],
     "switches": [{"name": "leaf1", "uplink_gbps": 3200}, {"name": "spine", "switches": ["leaf1"], "nodes": ["or-login"]}]},
    {"name": "va", "nodes": [{"name": "va1", "gpus": 4, "gpu_type": "V100"}]}
  ],
  "links": [{"a": "or", "b": "va", "gbps": 0.79, "latency_ms": 67, "comment": "DTFM"}]
})";

TEST(SpiderflowReader, ReadsGroupsSwitchesAndLinksInInternalUnits) {
    const Topology t = parse_spiderflow_topology(kGood, "good.json");
    ASSERT_EQ(t.clusters.size(), 2u);
    const Cluster& c = t.clusters[0];
    ASSERT_EQ(c.nodes.size(), 17u);
    EXPECT_EQ(c.nodes[0].name, "or-gpu001");
    EXPECT_EQ(c.nodes[15].name, "or-gpu016");
    EXPECT_EQ(c.nodes[15].gpu_type, "H100-SXM");
    EXPECT_EQ(c.nodes[15].leaf_switch, "leaf1");
    EXPECT_DOUBLE_EQ(c.nodes[3].network_Bps(), 50e9);  // 400 Gbps = 50 GB/s
    EXPECT_EQ(c.nodes[16].leaf_switch, "spine");      // listed by the switch
    EXPECT_EQ(c.switches[0].nodes.size(), 16u);
    EXPECT_DOUBLE_EQ(c.switches[0].uplink_Bps, units::gbps_to_Bps(3200));
    EXPECT_DOUBLE_EQ(c.intra_latency_s, 5e-6);
    EXPECT_EQ(t.total_gpus(), 132);
    EXPECT_DOUBLE_EQ(t.path(0, 1).bandwidth_Bps, units::gbps_to_Bps(0.79));
    EXPECT_DOUBLE_EQ(t.path(1, 0).latency_s, 0.067);
    EXPECT_TRUE(t.finalized());
}

TEST(SpiderflowReader, GroupFirstAndDigits) {
    const Topology t = parse_spiderflow_topology(R"({"spiderflow_topology_version": 1, "clusters": [
        {"name": "x", "nodes": [{"name_prefix": "node", "count": 3, "first": 9, "digits": 1, "gpus": 8, "gpu_type": "L40S"}]}]})",
                                                 "g");
    ASSERT_EQ(t.clusters[0].nodes.size(), 3u);
    EXPECT_EQ(t.clusters[0].nodes[0].name, "node9");
    EXPECT_EQ(t.clusters[0].nodes[2].name, "node11");
}

// Replaces the first occurrence of `from` in kGood, parses, and returns the error.
InputError error_of(const std::string& text) {
    try {
        parse_spiderflow_topology(text, "bad.json");
    } catch (const InputError& e) {
        return e;
    }
    ADD_FAILURE() << "no InputError for:\n" << text;
    return InputError("", 0, "", "none");
}

std::string mutate(const std::string& from, const std::string& to) {
    std::string s = kGood;
    const size_t p = s.find(from);
    EXPECT_NE(p, std::string::npos) << from;
    return s.replace(p, from.size(), to);
}

struct BadCase {
    const char* from;
    const char* to;
    const char* field;
};

TEST(SpiderflowReader, EachKindOfBadValueNamesItsField) {
    const BadCase cases[] = {
        {"\"spiderflow_topology_version\": 1", "\"spiderflow_topology_version\": 2", "spiderflow_topology_version"},
        {"\"spiderflow_topology_version\": 1,", "", "spiderflow_topology_version"},
        {"\"gpus\": 8", "\"gpus\": -8", "clusters[0].nodes[0].gpus"},
        {"\"gpus\": 8", "\"gpus\": \"8\"", "clusters[0].nodes[0].gpus"},
        {"\"gpus\": 8", "\"gpus\": 8.5", "clusters[0].nodes[0].gpus"},
        {"\"gpus\": 4", "\"gpus\": 4, \"gpu_typo\": \"V100\"", "clusters[1].nodes[0].gpu_typo"},
        {", \"gpu_type\": \"V100\"", "", "clusters[1].nodes[0].gpu_type"},
        {"\"count\": 16", "\"count\": 0", "clusters[0].nodes[0].count"},
        {"\"nvlink_domain\": 8", "\"nvlink_domain\": 9", "clusters[0].nodes[0].nvlink_domain"},
        {"\"kind\": \"ib\"", "\"kind\": \"infiniband\"", "clusters[0].nodes[0].nics[0].kind"},
        {"\"gbps\": 400}", "\"gbps\": 0}", "clusters[0].nodes[0].nics[0].gbps"},
        {"\"switch\": \"leaf1\"", "\"switch\": \"leaf7\"", "clusters[0].nodes[0].switch"},
        {"\"switches\": [\"leaf1\"]", "\"switches\": [\"leaf2\"]", "clusters[0].switches[1].switches[0]"},
        {"\"nodes\": [\"or-login\"]", "\"nodes\": [\"nobody\"]", "clusters[0].switches[1].nodes[0]"},
        {"\"nodes\": [\"or-login\"]", "\"nodes\": [\"or-gpu003\"]", "clusters[0].switches[1].nodes[0]"},
        {"{\"name\": \"or-login\", \"gpus\": 0}", "{\"name\": \"or-gpu002\", \"gpus\": 0}", "clusters[0].nodes[1]"},
        {"\"name\": \"va\"", "\"name\": \"or\"", "clusters[1].name"},
        {"\"name\": \"va\"", "\"name\": \"\"", "clusters[1].name"},
        {"\"b\": \"va\"", "\"b\": \"vb\"", "links[0].b"},
        {"\"b\": \"va\"", "\"b\": \"or\"", "links[0]"},
        {"\"gbps\": 0.79", "\"gbps\": -1", "links[0].gbps"},
        {"\"latency_ms\": 67", "\"latency_ms\": -67", "links[0].latency_ms"},
        {"\"latency_ms\": 67", "\"latency\": 67", "links[0].latency"},
        {"\"intra_gbps\": 400", "\"intra_gbps\": null", "clusters[0].intra_gbps"},
        {"\"region\": \"us-west-2\"", "\"region\": 5", "clusters[0].region"},
        {"\"uplink_gbps\": 3200", "\"uplink_gbps\": 1e999", ""},  // overflow: JSON syntax error
    };
    for (const BadCase& c : cases) {
        const InputError e = error_of(mutate(c.from, c.to));
        EXPECT_EQ(e.field(), c.field) << c.from << " -> " << c.to << ": " << e.what();
        EXPECT_EQ(e.source(), "bad.json");
        EXPECT_NE(std::string(e.what()).find("bad.json"), std::string::npos);
    }
}

TEST(SpiderflowReader, SyntaxErrorsNameTheLine) {
    const InputError e = error_of(mutate("\"name\": \"va\",", "\"name\": \"va\" \"oops\","));
    EXPECT_EQ(e.line(), 13);  // the line of the cluster "va"
    EXPECT_NE(std::string(e.what()).find("bad.json:13:"), std::string::npos) << e.what();
    EXPECT_EQ(error_of("{\n\n  \"a\": tru\n}").line(), 3);
    EXPECT_EQ(error_of("").line(), 1);
}

TEST(SpiderflowReader, TopLevelMustBeAnObjectWithClusters) {
    EXPECT_EQ(error_of("[1, 2]").field(), "");
    EXPECT_EQ(std::string(error_of("[1, 2]").what()), "bad.json: expected a JSON object");
    EXPECT_EQ(error_of(R"({"spiderflow_topology_version": 1})").field(), "clusters");
    EXPECT_EQ(error_of(R"({"spiderflow_topology_version": 1, "clusters": []})").field(), "clusters");
    EXPECT_EQ(error_of(R"({"spiderflow_topology_version": 1, "clusters": [{"name": "x", "nodes": []}], "links": {}})").field(),
              "links");
    EXPECT_EQ(error_of(R"({"spiderflow_topology_version": 1, "clusters": [{"name": "x", "nodes": {}}]})").field(),
              "clusters[0].nodes");
}

}  // namespace
}  // namespace spiderflow
