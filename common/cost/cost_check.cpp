#include <string>

#include "common/cost/cost_parts.h"

namespace spiderflow::cost {

std::string estimate_problem(const CostModel& model, const Plan& plan) {
    const Topology& topology = model.topology();
    const JobSpec& job = plan.job;
    const ModelArch& m = job.model;
    if (!topology.finalized()) return "topology is not finalized";
    if (m.layers < 1 || m.hidden < 1 || m.heads < 1 || m.vocab < 1 || job.seq_len < 1) {
        return "the job's model has no dimensions";
    }
    if (const PlanProblem bad = spiderflow::plan_problem(plan, &topology); !bad.empty()) return bad.message();
    const auto& clusters = topology.clusters;
    for (size_t i = 0; i < plan.cells.size(); ++i) {
        const StageCell& c = plan.cells[i];
        if (model.facts(c).gpu == nullptr) {
            const Cluster& cl = clusters[static_cast<size_t>(c.cluster)];
            const Node& node = cl.nodes[static_cast<size_t>(c.node)];
            return "cell (stage " + std::to_string(i / plan.dp) + ", replica " + std::to_string(i % plan.dp) +
                   "): GPU type '" + node.gpu_type + "' of " + cl.name + "/" + node.name + " is not in the catalog";
        }
    }
    if (job.sync.diloco()) return diloco_problem(topology, plan);
    return {};
}

}  // namespace spiderflow::cost
