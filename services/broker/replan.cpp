#include "services/broker/replan.h"

#include <exception>

#include "common/cost/cost_model.h"
#include "common/model/catalog.h"
#include "common/plan/plan_json.h"
#include "common/plan/plan_parts.h"
#include "common/plan/plan_transport.h"
#include "common/planner/plan_job.h"
#include "common/planner/planner.h"
#include "services/launch/launch_contract.h"
#include "services/slurmjob/plan_step_env.h"

namespace spiderflow::broker {

std::string replan_xjob(coalloc::XJob& job, const SiteState& federation, const ReplanSettings& settings) {
    try {
        std::string carried;
        for (const auto& [k, v] : job.step_env) {
            if (k == env::kPlanData) carried = v;
        }
        if (carried.empty()) return "its plan was too large to travel with the job, so the broker cannot plan it again";
        const Plan before = plan_from_json(decode_plan_text(carried, "the job's plan"), "the job's plan");

        // What the failures took, as the planner sees it: lost nodes down, lost clusters forbidden.
        SiteState left = federation;
        for (const std::string& lost : job.lost_nodes) {
            const auto colon = lost.find(':');
            if (colon == std::string::npos) continue;
            try {
                left.set_node_state({lost.substr(0, colon), lost.substr(colon + 1)}, NodeState::down, "lost by " + job.id);
            } catch (const std::exception&) {
                // A node the federation no longer has: nothing to plan around.
            }
        }
        auto view = std::make_shared<const Topology>(left.usable_view());

        PlanRequest request;
        request.job = before.job;
        request.forbidden_clusters = job.lost_clusters;
        if (!job.on_failure.any_layout) {
            request.tp = before.tp;
            request.pp = before.pp;
        }
        request.time_limit_s = settings.time_limit_s;
        const auto planner = make_planner(settings.policy);
        const CostModel cost(*view, Catalog::builtin());
        const Plan plan = plan_job(*planner, request, cost).plan;

        std::vector<coalloc::Part> parts;
        for (const PlanPart& p : split_by_cluster(plan, *view)) {
            if (!p.even() || p.rank_offset < 0) {
                return "the best plan on what is left (tp=" + std::to_string(plan.tp) + " pp=" + std::to_string(plan.pp) +
                       " dp=" + std::to_string(plan.dp) + ") cannot run as one Slurm job per cluster on '" + p.cluster_name +
                       "' (uneven GPUs per node, or its ranks between other clusters' ranks)";
            }
            parts.push_back(coalloc::Part{{p.cluster_name, static_cast<int>(p.nodes.size()), p.gpus_per_node.front(), p.tasks}});
        }
        if (parts.empty()) return "the new plan has no cells";
        job.parts = std::move(parts);
        job.step_env = slurmjob::plan_step_env(plan, *view);
        return "";
    } catch (const std::exception& e) {
        return e.what();
    }
}

}  // namespace spiderflow::broker
