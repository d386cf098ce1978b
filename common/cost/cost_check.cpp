#include <algorithm>
#include <tuple>

#include "common/cost/cost_parts.h"

namespace spiderflow::cost {

std::string plan_problem(const CostModel& model, const Plan& plan) {
    const Topology& topology = model.topology();
    const JobSpec& job = plan.job;
    const ModelArch& m = job.model;
    const int P = plan.pp, D = plan.dp, T = plan.tp, M = plan.num_micro_batches;
    if (!topology.finalized()) return "topology is not finalized";
    if (T < 1 || P < 1 || D < 1 || plan.micro_batch < 1 || M < 1) {
        return "tp, pp, dp, micro_batch and num_micro_batches must all be >= 1";
    }
    if (m.layers < 1 || m.hidden < 1 || m.heads < 1 || m.vocab < 1 || job.seq_len < 1) {
        return "the job's model has no dimensions";
    }
    if (plan.cells.size() != static_cast<size_t>(P) * D) {
        return "plan has " + std::to_string(plan.cells.size()) + " cells, pp*dp = " + std::to_string(P * D);
    }
    if (plan.layers_per_stage.size() != static_cast<size_t>(P)) return "layers_per_stage has not pp entries";
    int layer_sum = 0;
    for (int l : plan.layers_per_stage) {
        if (l < 0) return "a stage has a negative layer count";
        layer_sum += l;
    }
    if (layer_sum != m.layers) {
        return "stages hold " + std::to_string(layer_sum) + " layers, the model has " + std::to_string(m.layers);
    }
    const auto& clusters = topology.clusters;
    for (size_t i = 0; i < plan.cells.size(); ++i) {
        const StageCell& c = plan.cells[i];
        auto where = [&] { return "cell (stage " + std::to_string(i / D) + ", replica " + std::to_string(i % D) + ")"; };
        if (c.cluster < 0 || c.cluster >= static_cast<int>(clusters.size())) return where() + ": no such cluster";
        const Cluster& cl = clusters[static_cast<size_t>(c.cluster)];
        if (c.node < 0 || c.node >= static_cast<int>(cl.nodes.size())) return where() + ": no such node in " + cl.name;
        const Node& node = cl.nodes[static_cast<size_t>(c.node)];
        if (c.first_gpu < 0 || c.first_gpu + T > node.gpus) {
            return where() + ": GPUs " + std::to_string(c.first_gpu) + ".." + std::to_string(c.first_gpu + T - 1) +
                   " do not exist on " + cl.name + "/" + node.name + " (" + std::to_string(node.gpus) + " GPUs)";
        }
        if (model.facts(c).gpu == nullptr) {
            return where() + ": GPU type '" + node.gpu_type + "' of " + cl.name + "/" + node.name + " is not in the catalog";
        }
    }
    // Two cells on the same GPUs would double-book them.
    std::vector<const StageCell*> sorted;
    sorted.reserve(plan.cells.size());
    for (const auto& c : plan.cells) sorted.push_back(&c);
    std::sort(sorted.begin(), sorted.end(), [](const StageCell* x, const StageCell* y) {
        return std::tie(x->cluster, x->node, x->first_gpu) < std::tie(y->cluster, y->node, y->first_gpu);
    });
    for (size_t i = 1; i < sorted.size(); ++i) {
        const StageCell& x = *sorted[i - 1];
        const StageCell& y = *sorted[i];
        if (x.cluster == y.cluster && x.node == y.node && x.first_gpu + T > y.first_gpu) {
            return "GPU " + std::to_string(y.first_gpu) + " of " + clusters[static_cast<size_t>(y.cluster)].name + "/" +
                   clusters[static_cast<size_t>(y.cluster)].nodes[static_cast<size_t>(y.node)].name + " is used by two cells";
        }
    }
    return {};
}

}  // namespace spiderflow::cost
