// select/spiderflow_cons_tres's node choice (plan_placement.cpp) on node, gres and switch records
// built the way slurmctld holds them: the test plays slurmctld, whose tables the plugin reads
// (their definitions come from plugins/select/client_globals.cpp, as in a Slurm client), and the
// public libslurm gives the list and bitmap calls. Built only with --with-slurm-source.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "plugins/select/plan_placement.h"
#include "services/slurmjob/plan_summary.h"

using namespace spiderflow;
using namespace spiderflow::plugin;

namespace {

// One cluster "here" of `nodes` 8-GPU nodes under leaf switches of `per_leaf` nodes each, and a
// top switch over the leaves; every record owned here and put in slurmctld's tables.
class FakeCtld {
public:
    FakeCtld(int nodes, int per_leaf) {
        cluster_name_ = strdup("here");
        slurm_conf.cluster_name = cluster_name_;
        slurm_conf.last_update = 1000;
        for (int i = 0; i < nodes; ++i) {
            auto* node = static_cast<node_record_t*>(std::calloc(1, sizeof(node_record_t)));
            node->name = strdup(("n" + std::to_string(i)).c_str());
            node->node_state = NODE_STATE_IDLE;
            auto* gpu = static_cast<gres_node_state_t*>(std::calloc(1, sizeof(gres_node_state_t)));
            gpu->gres_cnt_avail = 8;
            auto* gres = static_cast<gres_state_t*>(std::calloc(1, sizeof(gres_state_t)));
            gres->gres_name = strdup("gpu");
            gres->gres_data = gpu;
            node->gres_list = list_create(nullptr);
            list_append(node->gres_list, gres);
            gpus_.push_back(gpu);
            gres_.push_back(gres);
            nodes_.push_back(node);
        }
        const int leaves = (nodes + per_leaf - 1) / per_leaf;
        switches_.resize(static_cast<size_t>(leaves + 1));
        for (int s = 0; s < leaves; ++s) {
            switch_record_t& leaf = switches_[static_cast<size_t>(s)];
            leaf.name = strdup(("leaf" + std::to_string(s)).c_str());
            leaf.node_bitmap = bit_alloc(nodes);
            for (int i = s * per_leaf; i < std::min(nodes, (s + 1) * per_leaf); ++i) bit_set(leaf.node_bitmap, i);
        }
        switch_record_t& top = switches_.back();
        top.name = strdup("top");
        top.level = 1;
        top.num_switches = static_cast<uint16_t>(leaves);
        top.switch_index = static_cast<uint16_t*>(std::calloc(static_cast<size_t>(leaves), sizeof(uint16_t)));
        for (int s = 0; s < leaves; ++s) top.switch_index[s] = static_cast<uint16_t>(s);
        publish();
    }
    ~FakeCtld() {
        node_record_table_ptr = nullptr;
        node_record_count = 0;
        switch_record_table = nullptr;
        switch_record_cnt = 0;
        for (node_record_t* node : nodes_) {
            list_destroy(node->gres_list);   // the list frees no items (no destructor given)
            std::free(node->name);
            std::free(node);
        }
        for (gres_state_t* g : gres_) {
            std::free(g->gres_name);
            std::free(g);
        }
        for (gres_node_state_t* g : gpus_) std::free(g);
        for (switch_record_t& s : switches_) {
            std::free(s.name);
            std::free(s.switch_index);
            if (s.node_bitmap != nullptr) bit_free(s.node_bitmap);
        }
        slurm_conf.cluster_name = nullptr;
        std::free(cluster_name_);
    }
    FakeCtld(const FakeCtld&) = delete;
    FakeCtld& operator=(const FakeCtld&) = delete;

    node_record_t* node(int i) { return nodes_[static_cast<size_t>(i)]; }
    void busy_gpus(int i, int n) { gpus_[static_cast<size_t>(i)]->gres_cnt_alloc = static_cast<uint64_t>(n); }
    // Node i under leaf switch `leaf` only.
    void set_leaf(int i, int leaf) {
        for (size_t s = 0; s + 1 < switches_.size(); ++s) bit_clear(switches_[s].node_bitmap, i);
        bit_set(switches_[static_cast<size_t>(leaf)].node_bitmap, i);
    }

private:
    void publish() {
        node_record_table_ptr = nodes_.data();
        node_record_count = static_cast<int>(nodes_.size());
        switch_record_table = switches_.data();
        switch_record_cnt = static_cast<int>(switches_.size());
    }

    char* cluster_name_ = nullptr;
    std::vector<node_record_t*> nodes_;
    std::vector<gres_state_t*> gres_;
    std::vector<gres_node_state_t*> gpus_;
    std::vector<switch_record_t> switches_;
};

// Every node offered.
struct Candidates {
    bitstr_t* bits;
    explicit Candidates(int n) : bits(bit_alloc(n)) { bit_nset(bits, 0, n - 1); }
    ~Candidates() { bit_free(bits); }
};

// A job as slurmctld holds it, with job_submit's summary of a plan on nodes x 8 GPUs in pp stages.
struct Job {
    job_record_t rec{};
    std::string comment;
    Job(int nodes, int pp, const std::vector<slurmjob::SummaryPart>& parts = {}) {
        slurmjob::PlanSummary s;
        s.model = "llama3-8b";
        s.tp = 8;
        s.pp = pp;
        s.dp = nodes / pp;
        s.micro_batch = 1;
        s.nodes = nodes;
        s.gpus_per_node = 8;
        s.parts = parts;
        comment = slurmjob::format_plan_summary(s);
        rec.admin_comment = comment.data();
    }
};

std::vector<int> chosen(const PlacementChoice& c, int nodes) {
    std::vector<int> out;
    for (int i = 0; c.nodes != nullptr && i < nodes; ++i)
        if (bit_test(c.nodes, i)) out.push_back(i);
    return out;
}

// The choice, its bitmap freed.
struct Choice {
    PlacementChoice c;
    explicit Choice(PlacementChoice choice) : c(std::move(choice)) {}
    ~Choice() {
        if (c.nodes != nullptr) bit_free(c.nodes);
    }
};

}  // namespace

// Two stages on two nodes: one leaf switch holds both, the busy node is left out.
TEST(PlanPlacement, APlannedJobGetsNodesUnderOneLeafSwitch) {
    FakeCtld ctld(6, 2);
    ctld.busy_gpus(0, 8);   // leaf0: n0 busy, n1 free; leaf1: n2, n3 free
    Candidates all(6);
    Job job(2, 2);
    const Choice choice(planned_nodes(&job.rec, all.bits, 2));
    ASSERT_NE(choice.c.nodes, nullptr) << choice.c.why;
    const std::vector<int> nodes = chosen(choice.c, 6);
    EXPECT_EQ(nodes.size(), 2u);
    EXPECT_EQ(choice.c.leaf_switches, 1);
    EXPECT_EQ(choice.c.split_stages, 0);
    EXPECT_EQ(nodes.front() / 2, nodes.back() / 2) << "both under one leaf";
    EXPECT_NE(nodes.front(), 0) << "n0 has no free GPU";
}

// Nodes Slurm does not offer, or that take no new work, are never chosen; too few left says so.
TEST(PlanPlacement, OnlyOfferedNodesThatTakeWorkAreChosen) {
    FakeCtld ctld(4, 2);
    Candidates offered(4);
    bit_clear(offered.bits, 2);
    ctld.node(3)->node_state = NODE_STATE_IDLE | NODE_STATE_DRAIN;
    Job job(2, 2);
    {
        const Choice choice(planned_nodes(&job.rec, offered.bits, 2));
        ASSERT_NE(choice.c.nodes, nullptr) << choice.c.why;
        EXPECT_EQ(chosen(choice.c, 4), (std::vector<int>{0, 1}));
    }
    bit_clear(offered.bits, 1);
    const Choice none(planned_nodes(&job.rec, offered.bits, 2));
    EXPECT_EQ(none.c.nodes, nullptr);
    EXPECT_EQ(none.c.why, "fewer than 2 nodes with 8 free GPUs");
}

// What the plugin leaves to cons_tres alone, and why.
TEST(PlanPlacement, JobsItDoesNotArrangeAreLeftAloneWithAReason) {
    FakeCtld ctld(4, 2);
    Candidates all(4);
    job_record_t plain{};
    EXPECT_EQ(planned_nodes(&plain, all.bits, 2).nodes, nullptr);
    std::string admins = "an admin's words";
    plain.admin_comment = admins.data();
    const PlacementChoice not_ours = planned_nodes(&plain, all.bits, 2);
    EXPECT_EQ(not_ours.nodes, nullptr);
    EXPECT_EQ(not_ours.why, "");

    Job one(1, 1);
    EXPECT_EQ(planned_nodes(&one.rec, all.bits, 1).nodes, nullptr) << "one node: nothing to arrange";

    Job two(2, 2);
    const PlacementChoice other_count = planned_nodes(&two.rec, all.bits, 3);
    EXPECT_EQ(other_count.nodes, nullptr);
    EXPECT_EQ(other_count.why, "the job asks for 3 nodes, its plan for 2");

    job_details details{};
    details.req_node_bitmap = all.bits;
    two.rec.details = &details;
    const PlacementChoice named = planned_nodes(&two.rec, all.bits, 2);
    EXPECT_EQ(named.nodes, nullptr);
    EXPECT_EQ(named.why, "the job names its nodes");
}

// A cross-site part arranges this cluster's share only: its nodes, whole stages of the plan.
TEST(PlanPlacement, ACrossSitePartArrangesThisClustersShare) {
    FakeCtld ctld(4, 2);
    Candidates all(4);
    Job job(4, 4, {{"here", 2, 8, 16}, {"there", 2, 8, 16}});
    const Choice choice(planned_nodes(&job.rec, all.bits, 2));
    ASSERT_NE(choice.c.nodes, nullptr) << choice.c.why;
    EXPECT_EQ(chosen(choice.c, 4).size(), 2u);
    EXPECT_EQ(choice.c.leaf_switches, 1);
    const PlacementChoice whole = planned_nodes(&job.rec, all.bits, 4);
    EXPECT_EQ(whole.why, "the job asks for 4 nodes, its plan for 2");
}

// The cluster is read once per shape; a reconfigure (slurm_conf.last_update) that regroups the
// nodes under other leaf switches is read anew.
TEST(PlanPlacement, AReconfiguredSwitchLayoutIsReadAnew) {
    FakeCtld ctld(4, 2);   // leaf0: n0 n1, leaf1: n2 n3
    Candidates all(4);
    Job job(2, 2);
    ctld.busy_gpus(1, 8);
    ctld.busy_gpus(3, 8);
    {
        const Choice before(planned_nodes(&job.rec, all.bits, 2));
        ASSERT_NE(before.c.nodes, nullptr) << before.c.why;
        EXPECT_EQ(chosen(before.c, 4), (std::vector<int>{0, 2}));
        EXPECT_EQ(before.c.leaf_switches, 2);
    }
    ctld.set_leaf(1, 1);   // leaf0: n0 n2, leaf1: n1 n3
    ctld.set_leaf(2, 0);
    slurm_conf.last_update += 1;
    const Choice after(planned_nodes(&job.rec, all.bits, 2));
    ASSERT_NE(after.c.nodes, nullptr) << after.c.why;
    EXPECT_EQ(chosen(after.c, 4), (std::vector<int>{0, 2}));
    EXPECT_EQ(after.c.leaf_switches, 1);
}
