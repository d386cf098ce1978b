#include "services/slurmjob/request_shape.h"

#include <algorithm>

#include "common/plan/plan_parts.h"
#include "services/slurmjob/cross_site_shape.h"

namespace spiderflow::slurmjob {

bool count_allowed(const SlurmRequest& req, int world, GpuCountMode mode) {
    if (!req.gpus || *req.gpus == world || mode == GpuCountMode::best) return true;
    return mode == GpuCountMode::at_most && world < *req.gpus;
}

std::optional<Stop> choose_tasks_per_node(const SlurmRequest& req, int nodes, int gpn, int world, int* out) {
    int tpn = gpn;
    if (req.ntasks_per_node) tpn = *req.ntasks_per_node;
    else if (req.ntasks && *req.ntasks == nodes) tpn = 1;
    if (tpn != gpn && tpn != 1) {
        return Stop{Outcome::reject, "spiderflow: --ntasks-per-node=" + std::to_string(tpn) + " does not match the plan's " +
                                         std::to_string(gpn) + " GPUs per node; use " + std::to_string(gpn) +
                                         " (one task per GPU) or 1 (one launcher per node, e.g. torchrun)", RejectKind::tasks};
    }
    if (req.ntasks && *req.ntasks != tpn * nodes) {
        return Stop{Outcome::reject, "spiderflow: -n " + std::to_string(*req.ntasks) + " does not match the plan's " +
                                         std::to_string(nodes) + " node(s) x " + std::to_string(gpn) + " GPUs; use -n " +
                                         std::to_string(world) + " (one task per GPU) or -n " + std::to_string(nodes) +
                                         " (one launcher per node)", RejectKind::tasks};
    }
    *out = tpn;
    return std::nullopt;
}

std::string even_counts_near(int gpus, const Cluster& here) {
    int node_gpus = 0, total = 0;
    for (const auto& n : here.nodes) {
        node_gpus = std::max(node_gpus, n.gpus);
        total += n.gpus;
    }
    if (node_gpus <= 0) return "";
    const int below = gpus / node_gpus * node_gpus;
    const int above = (gpus + node_gpus - 1) / node_gpus * node_gpus;
    std::string out;
    if (below > 0) out = "--gpus=" + std::to_string(below);
    if (above != below && above <= total) out += (out.empty() ? "" : " or ") + std::string("--gpus=") + std::to_string(above);
    return out;
}

std::optional<Stop> shape_request(const Plan& plan, const Topology& topology, int cluster, const Cluster& here,
                                  const SlurmRequest& req, GpuCountMode mode, SubmitRewrite* r) {
    const std::vector<PlanPart> parts = split_by_cluster(plan, topology);
    if (parts.empty()) return Stop{Outcome::fail_open, "plan has no cells"};
    if (parts.size() > 1) return shape_cross_site(plan, parts, cluster, here, req, mode, r);
    if (parts.front().cluster != cluster) {
        // The federation's best place for it is one other cluster, whole: no WAN in its way.
        return Stop{Outcome::reject, "spiderflow: this job runs best on cluster '" + parts.front().cluster_name + "' alone (" +
                                         gpu_words(parts.front().tasks) + "), not on this cluster '" + here.name +
                                         "'; submit it there", RejectKind::no_fit};
    }
    const PlanPart& part = parts.front();
    const int world = plan.world_size();
    if (!count_allowed(req, world, mode)) {
        return Stop{Outcome::reject, "spiderflow: " + req.gpus_text + " but the plan uses " + gpu_words(world) +
                                         "; ask for --gpus=" + std::to_string(world) + " or plan for " + gpu_words(*req.gpus),
                    RejectKind::gpus};
    }
    const int lo = *std::min_element(part.gpus_per_node.begin(), part.gpus_per_node.end());
    const int hi = *std::max_element(part.gpus_per_node.begin(), part.gpus_per_node.end());
    if (!part.even()) {
        const std::string near = even_counts_near(world, here);
        return Stop{Outcome::reject, "spiderflow: " + gpu_words(world) + " do not split evenly over this cluster's nodes (the plan "
                                         "puts " + std::to_string(hi) + " on some and " + std::to_string(lo) +
                                         " on others, and Slurm gives every node of a job the same GPUs)" +
                                         (near.empty() ? "" : "; ask for " + near),
                    RejectKind::gpus};
    }
    r->nodes = static_cast<int>(part.nodes.size());
    r->gpus_per_node = hi;
    if (req.nodes && *req.nodes != r->nodes) {
        return Stop{Outcome::reject, "spiderflow: you asked for " + std::to_string(*req.nodes) + " nodes (-N) but the plan for " +
                                         gpu_words(world) + " uses " + std::to_string(r->nodes) + " node(s) x " +
                                         std::to_string(hi) + " GPUs; drop -N or ask for --gpus=" +
                                         std::to_string(*req.nodes * hi), RejectKind::nodes};
    }
    if (req.gpus_per_node && *req.gpus_per_node != hi) {
        return Stop{Outcome::reject, "spiderflow: you asked for " + std::to_string(*req.gpus_per_node) +
                                         " GPUs per node but the plan uses " + std::to_string(hi) + " on each of " +
                                         std::to_string(r->nodes) + " node(s)", RejectKind::gpus};
    }
    // Tasks: one per GPU (srun launches ranks), or one per node (torchrun launches them).
    int tpn = hi;
    if (const auto bad = choose_tasks_per_node(req, r->nodes, hi, world, &tpn)) return bad;
    r->tasks_per_node = tpn;
    r->num_tasks = tpn * r->nodes;
    r->slurm_gpu_type = req.gpu_type;
    r->gpu_type = here.nodes[static_cast<size_t>(part.nodes.front())].gpu_type;
    return std::nullopt;
}

}  // namespace spiderflow::slurmjob
