// A requeued cross-site job planned anew on the broker's view: the same job, without what
// failed, the tensor and pipeline degrees kept unless the job allows any layout.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>

#include "common/cost/cost_model.h"
#include "common/model/catalog.h"
#include "common/model/job_spec.h"
#include "common/plan/plan_parts.h"
#include "common/planner/plan_job.h"
#include "common/planner/planner.h"
#include "common/site/site_state.h"
#include "common/topology/spiderflow_reader.h"
#include "services/broker/replan.h"
#include "services/launch/launch_contract.h"
#include "services/slurmjob/plan_step_env.h"

using namespace spiderflow;

namespace {

// Three clusters of two 8-GPU nodes, every pair linked at 10 Gbit/s and 20 ms (the integration
// tests' federation).
std::shared_ptr<const Topology> three_clusters() {
    std::string clusters;
    for (const char* c : {"a", "b", "c"}) {
        std::string nodes;
        for (int n = 1; n <= 2; ++n) {
            nodes += std::string(nodes.empty() ? "" : ", ") + "{\"name\": \"" + c + "n" + std::to_string(n) +
                     "\", \"gpus\": 8, \"gpu_type\": \"H100-SXM\", \"nvlink_domain\": 8, \"nics\": [{\"name\": \"mlx5_0\", "
                     "\"kind\": \"ib\", \"gbps\": 400}], \"switch\": \"s1\"}";
        }
        clusters += std::string(clusters.empty() ? "" : ", ") + "{\"name\": \"" + c +
                    "\", \"intra_gbps\": 400, \"intra_latency_ms\": 0.005, \"nodes\": [" + nodes +
                    "], \"switches\": [{\"name\": \"s1\"}]}";
    }
    const std::string text = "{\"spiderflow_topology_version\": 1, \"name\": \"three\", \"clusters\": [" + clusters +
                             "], \"links\": [{\"a\": \"a\", \"b\": \"b\", \"gbps\": 10, \"latency_ms\": 20}, {\"a\": \"a\", "
                             "\"b\": \"c\", \"gbps\": 10, \"latency_ms\": 20}, {\"a\": \"b\", \"b\": \"c\", \"gbps\": 10, "
                             "\"latency_ms\": 20}]}";
    return std::make_shared<const Topology>(parse_spiderflow_topology(text, "three"));
}

// A cross-site job as job_submit would have planned it on clusters a and b: 32 GPUs of llama3-8b.
coalloc::XJob job_on_a_and_b(const Topology& topology, Plan* planned) {
    PlanRequest request;
    request.job.model = Catalog::builtin().model("llama3-8b") ? *Catalog::builtin().model("llama3-8b") : ModelArch{};
    request.job.global_batch = 64;
    request.job.gpus = 32;
    request.allowed_clusters = {"a", "b"};
    const auto planner = make_planner("spinsearch");
    const CostModel cost(topology, Catalog::builtin());
    *planned = plan_job(*planner, request, cost).plan;
    coalloc::XJob job;
    job.id = "a:7";
    job.home = "a";
    for (const PlanPart& p : split_by_cluster(*planned, topology)) {
        job.parts.push_back(coalloc::Part{{p.cluster_name, static_cast<int>(p.nodes.size()), p.gpus_per_node.front(), p.tasks}});
    }
    job.step_env = slurmjob::plan_step_env(*planned, topology);
    job.on_failure.requeues = 2;
    return job;
}

std::string env_of(const coalloc::XJob& job, const char* name) {
    for (const auto& [k, v] : job.step_env) {
        if (k == name) return v;
    }
    return "";
}

}  // namespace

TEST(Replan, ALostClustersNodesMoveThePartElsewhereWithTheSameTensorAndPipelineDegrees) {
    const auto topology = three_clusters();
    Plan before;
    coalloc::XJob job = job_on_a_and_b(*topology, &before);
    ASSERT_EQ(job.parts.size(), 2u);
    ASSERT_EQ(job.parts[1].spec.cluster, "b");
    job.lost_nodes = {"b:bn1", "b:bn2"};
    const SiteState federation(topology);
    ASSERT_EQ(broker::replan_xjob(job, federation), "");
    std::vector<std::string> clusters;
    for (const auto& p : job.parts) clusters.push_back(p.spec.cluster);
    std::sort(clusters.begin(), clusters.end());
    EXPECT_EQ(clusters, (std::vector<std::string>{"a", "c"}));
    EXPECT_EQ(env_of(job, env::kTp), std::to_string(before.tp));
    EXPECT_EQ(env_of(job, env::kPp), std::to_string(before.pp));
    EXPECT_EQ(env_of(job, env::kClusters).find('b'), std::string::npos);
    EXPECT_FALSE(env_of(job, env::kPlanData).empty());
}

TEST(Replan, ALostClusterIsLeftOutAndWhatCannotFitSaysWhy) {
    const auto topology = three_clusters();
    Plan before;
    coalloc::XJob job = job_on_a_and_b(*topology, &before);
    job.lost_clusters = {"b", "c"};
    const coalloc::XJob untouched = job;
    const SiteState federation(topology);
    // 32 GPUs cannot fit in a's 16: the job stays as it was, and the reason names the limit.
    const std::string why = broker::replan_xjob(job, federation);
    EXPECT_NE(why, "");
    EXPECT_EQ(job.parts.size(), untouched.parts.size());
    EXPECT_EQ(job.step_env, untouched.step_env);
    // Without the plan it carried there is nothing to plan again.
    job.step_env.clear();
    job.lost_clusters = {"b"};
    EXPECT_NE(broker::replan_xjob(job, federation).find("too large to travel"), std::string::npos);
}
