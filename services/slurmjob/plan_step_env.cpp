#include "services/slurmjob/plan_step_env.h"

#include "common/plan/nccl_env.h"
#include "common/plan/plan.h"
#include "common/plan/plan_json.h"
#include "common/plan/plan_transport.h"
#include "common/util/human_format.h"
#include "services/launch/launch_contract.h"

namespace spiderflow::slurmjob {

std::vector<std::pair<std::string, std::string>> plan_step_env(const Plan& plan, const Topology& topology) {
    const CommFacts facts = comm_facts(plan, topology);
    std::string layers;
    for (int n : plan.layers_per_stage) layers += (layers.empty() ? "" : ",") + std::to_string(n);
    std::string clusters;
    for (const auto& c : facts.clusters) clusters += (clusters.empty() ? "" : ",") + c;
    return {
        {env::kContractVersion, std::to_string(env::kLaunchContractVersion)},
        {env::kTp, std::to_string(plan.tp)},
        {env::kPp, std::to_string(plan.pp)},
        {env::kDp, std::to_string(plan.dp)},
        {env::kMicroBatch, std::to_string(plan.micro_batch)},
        {env::kGlobalBatch, std::to_string(plan.job.global_batch)},
        {env::kLayerSplit, layers},
        {env::kClusters, clusters},
        {env::kWanRttMs, format_number("%.6g", facts.max_rtt_s * 1e3)},
        {env::kWanGbps, format_number("%.6g", facts.min_wan_Bps * 8 / 1e9)},
        // The plan travels with the job: steps on nodes that share no disk with slurmctld read it
        // from here, and nothing is left on disk to clean up when the job ends.
        {env::kPlanData, encode_plan_text(plan_to_json(plan, topology, -1))},
    };
}

}  // namespace spiderflow::slurmjob
