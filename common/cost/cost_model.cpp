// The iteration-time model; doc/cost-model.md derives every term, common/cost/cost_parts.h
// computes them. All work is O(pp*dp) per call with a handful of small vectors, and nothing is
// mutated: estimate() is safe from many threads.
#include "common/cost/cost_model.h"

#include <cmath>
#include <string>
#include <utility>

#include "common/cost/cost_parts.h"
#include "common/cost/flops.h"

namespace spiderflow {

CostModel::CostModel(const Topology& topology, const Catalog& catalog, CostOptions options)
    : topology_(topology), catalog_(catalog), options_(options) {
    nodes_.resize(topology.clusters.size());
    for (size_t c = 0; c < topology.clusters.size(); ++c) {
        const Cluster& cluster = topology.clusters[c];
        for (const Node& node : cluster.nodes) {
            NodeFacts f;
            f.gpu = catalog.gpu(node.gpu_type);
            double nic = 0;
            for (const Nic& n : node.nics) nic += n.bandwidth_Bps;
            f.network_Bps = nic > 0 ? nic : cluster.intra_bandwidth_Bps;
            f.nvlink_domain = node.nvlink_domain_size > 0 ? node.nvlink_domain_size : node.gpus;
            if (f.gpu != nullptr) {
                f.local_Bps = (f.gpu->nvlink_Bps > 0 && f.nvlink_domain > 1) ? f.gpu->nvlink_Bps : f.gpu->pcie_Bps;
            }
            nodes_[c].push_back(f);
        }
        fabrics_.push_back(cost::ClusterFabric::of(cluster));
    }
}

Prediction CostModel::estimate(const Plan& plan) const {
    Prediction p = estimate_impl(plan, false);
    if (!options_.scaling_efficiency || p.iteration_s <= 0 || !std::isfinite(p.iteration_s)) return p;
    bool several_sites = false;
    for (const auto& c : plan.cells) several_sites = several_sites || c.cluster != plan.cells.front().cluster;
    if (!several_sites) {
        p.scaling_efficiency = 1.0;
    } else {
        const Prediction one_site = estimate_impl(plan, true);
        p.scaling_efficiency = one_site.iteration_s / p.iteration_s;
    }
    return p;
}

Prediction CostModel::estimate_impl(const Plan& plan, bool single_site) const {
    Prediction out;
    auto fail = [&out](std::string why) {
        out.feasible = false;
        out.infeasible_reason = std::move(why);
        return out;
    };
    if (std::string why = cost::estimate_problem(*this, plan); !why.empty()) return fail(std::move(why));
    const cost::CellTimes cells = cost::cell_times(*this, plan);
    const cost::PipelineTimes pipeline = cost::pipeline_times(*this, plan, cells, single_site);
    if (!pipeline.problem.empty()) return fail(pipeline.problem);
    const cost::DataParallelTimes dp = cost::dp_allreduce_times(*this, plan, single_site);
    if (!dp.problem.empty()) return fail(dp.problem);
    const double dp_exposed = cost::dp_exposed_s(options_, plan, dp.allreduce_s, cells);
    const double optimizer = cost::optimizer_s(*this, plan);
    cost::MemoryFit memory = cost::memory_fit(*this, plan);
    out.stage_memory_bytes = std::move(memory.stage_bytes);
    out.max_memory_bytes = memory.max_bytes;
    if (!memory.problem.empty()) {
        out.feasible = false;
        out.infeasible_reason = std::move(memory.problem);
    }

    // The slowest replica's pipeline paces the iteration; its slowest cell is what it waits on.
    const JobSpec& job = plan.job;
    const size_t slow = static_cast<size_t>(pipeline.stage) * plan.dp + pipeline.replica;
    out.compute_s = plan.num_micro_batches * cells.compute_s[slow];
    out.tp_comm_s = plan.num_micro_batches * cells.tp_s[slow];
    out.pp_comm_s = pipeline.p2p_s;
    out.bubble_s = pipeline.bubble_s;
    out.dp_comm_s = dp_exposed;
    out.optimizer_s = optimizer;
    out.iteration_s = pipeline.iteration_s + dp_exposed + optimizer;
    if (job.sync.diloco()) {
        // One inner step as above; the outer step's exposed time is spread over its H inner steps.
        const cost::OuterStep outer = cost::outer_step(*this, plan, out.iteration_s, single_site);
        if (!outer.problem.empty()) return fail(outer.problem);
        const double inner_steps_s = job.sync.inner_steps * out.iteration_s;
        out.outer_allreduce_s = outer.allreduce_s;
        out.outer_exposed_s = outer.exposed_s;
        out.outer_wan_bytes = outer.wan_bytes;
        out.compute_utilisation = inner_steps_s / (inner_steps_s + outer.exposed_s);
        out.iteration_s = (inner_steps_s + outer.exposed_s) / job.sync.inner_steps;
    }
    out.tokens_per_s = static_cast<double>(job.global_batch) * job.seq_len / out.iteration_s;
    out.mfu = cost::model_flops_per_iteration(job) / out.iteration_s / cells.peak_flops;
    return out;
}

}  // namespace spiderflow
