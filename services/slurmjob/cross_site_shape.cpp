#include "services/slurmjob/cross_site_shape.h"

#include "services/slurmjob/request_shape.h"

namespace spiderflow::slurmjob {

std::optional<Stop> shape_cross_site(const Plan& plan, const std::vector<PlanPart>& parts, int cluster, const Cluster& here,
                                     const SlurmRequest& req, GpuCountMode mode, SubmitRewrite* r) {
    const int world = plan.world_size();
    std::string where;
    for (const auto& p : parts) where += (where.empty() ? "" : ", ") + p.cluster_name + " (" + gpu_words(p.tasks) + ")";
    const PlanPart* home = nullptr;
    for (const auto& p : parts) {
        if (p.cluster == cluster) home = &p;
    }
    if (home == nullptr) {
        return Stop{Outcome::reject, "spiderflow: the plan places this job on " + where + " and nothing on this cluster '" +
                                         here.name + "'; submit it on one of those clusters", RejectKind::no_fit};
    }
    if (!count_allowed(req, world, mode)) {
        return Stop{Outcome::reject, "spiderflow: " + req.gpus_text + " but the plan uses " + gpu_words(world) +
                                         "; ask for --gpus=" + std::to_string(world), RejectKind::gpus};
    }
    if (req.nodes) {
        return Stop{Outcome::reject, "spiderflow: -N " + std::to_string(*req.nodes) + " cannot hold: the plan spans clusters (" +
                                         where + "); drop -N and ask for GPUs only", RejectKind::nodes};
    }
    for (const auto& p : parts) {
        const int gpn = p.gpus_per_node.front();
        if (!p.even()) {
            return Stop{Outcome::reject, "spiderflow: the plan (" + where + ") does not use the same GPUs on every node of '" +
                                             p.cluster_name + "', and Slurm gives every node of a job the same GPUs; ask for "
                                             "a multiple of the clusters' node size", RejectKind::gpus};
        }
        if (req.gpus_per_node && *req.gpus_per_node != gpn) {
            return Stop{Outcome::reject, "spiderflow: you asked for " + std::to_string(*req.gpus_per_node) +
                                             " GPUs per node but the plan uses " + std::to_string(gpn) + " on '" +
                                             p.cluster_name + "'", RejectKind::gpus};
        }
        if (p.rank_offset < 0) {
            return Stop{Outcome::reject, "spiderflow: the plan (" + where + ") spreads ranks of '" + p.cluster_name +
                                             "' between other clusters' ranks (data parallelism across sites), which a "
                                             "cross-site job cannot run yet; ask for a GPU count whose plan keeps each "
                                             "pipeline section on one cluster, or pass --llm-plan", RejectKind::no_fit};
        }
    }
    int total_nodes = 0;
    for (const auto& p : parts) total_nodes += static_cast<int>(p.nodes.size());
    const int gpn = home->gpus_per_node.front();
    int tpn = gpn;
    SlurmRequest home_req = req;  // -n counts the whole world's tasks; the home part holds its share
    home_req.ntasks.reset();
    if (req.ntasks) {
        if (*req.ntasks == total_nodes) home_req.ntasks_per_node = 1;
        else if (*req.ntasks != world) {
            return Stop{Outcome::reject, "spiderflow: -n " + std::to_string(*req.ntasks) + " does not match the plan's " +
                                             std::to_string(world) + " GPUs on " + std::to_string(total_nodes) +
                                             " nodes; use -n " + std::to_string(world) + " or -n " + std::to_string(total_nodes),
                        RejectKind::tasks};
        }
    }
    if (const auto bad = choose_tasks_per_node(home_req, static_cast<int>(home->nodes.size()), gpn, world, &tpn)) return bad;
    r->nodes = static_cast<int>(home->nodes.size());
    r->gpus_per_node = gpn;
    r->tasks_per_node = tpn;
    r->num_tasks = tpn * r->nodes;
    r->slurm_gpu_type = req.gpu_type;
    r->gpu_type = here.nodes[static_cast<size_t>(home->nodes.front())].gpu_type;
    r->hold = true;
    for (const auto& p : parts) {
        r->parts.push_back({p.cluster_name, static_cast<int>(p.nodes.size()), p.gpus_per_node.front(), p.tasks});
    }
    return std::nullopt;
}

}  // namespace spiderflow::slurmjob
