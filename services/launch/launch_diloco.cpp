#include "services/launch/launch_diloco.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "common/util/errors.h"
#include "services/launch/command_flags.h"

namespace spiderflow {
namespace {

struct Flag {
    std::string name;
    std::string value;   // empty: a switch
    std::string why;
};

// Inner steps the outer all-reduce needs to hide behind (torchft's fragment_sync_delay, the
// Streaming DiLoCo paper's tau): at least 1, below H.
int sync_delay_steps(const Plan& plan) {
    const Prediction& q = plan.prediction;
    const int H = plan.job.sync.inner_steps;
    const double inner_s = q.iteration_s - q.outer_exposed_s / H;
    if (H <= 1) return 0;
    if (inner_s <= 0 || q.outer_allreduce_s <= 0) return 1;
    return std::clamp(static_cast<int>(std::ceil(q.outer_allreduce_s / inner_s)), 1, H - 1);
}

}  // namespace

DilocoGroup diloco_group(const Plan& plan, int cluster) {
    if (!plan.job.sync.diloco()) throw InputError("launch", 0, "job.sync", "not a DiLoCo plan");
    std::set<int> sites;
    for (const auto& c : plan.cells) sites.insert(c.cluster);
    if (sites.count(cluster) == 0) throw InputError("launch", 0, "cluster", "the plan has no cell on this cluster");
    DilocoGroup g;
    g.replica_id = static_cast<int>(std::distance(sites.begin(), sites.find(cluster)));
    g.group_size = static_cast<int>(sites.size());
    std::map<int, int> cells_per_node;
    for (const auto& c : plan.cells)
        if (c.cluster == cluster) ++cells_per_node[c.node];
    g.nodes = static_cast<int>(cells_per_node.size());
    for (const auto& [node, cells] : cells_per_node) g.gpus_per_node = std::max(g.gpus_per_node, cells * plan.tp);
    // A DiLoCo plan keeps whole replicas in one site (cost::diloco_problem), so stage 0 counts them.
    for (int r = 0; r < plan.dp; ++r) g.dp += plan.cell(0, r).cluster == cluster;
    return g;
}

std::vector<std::string> torchtitan_diloco_args(const Plan& plan, const DilocoGroup& g,
                                                const std::vector<std::string>& command) {
    const SyncSpec& sync = plan.job.sync;
    std::vector<Flag> flags = {
        {"--fault_tolerance.enable", "", "torchft carries DiLoCo"},
        {"--fault_tolerance.semi_sync_method", "diloco", "the plan trains with DiLoCo"},
        {"--fault_tolerance.sync_steps", std::to_string(sync.inner_steps), "the plan's inner steps H"},
        {"--fault_tolerance.replica_id", std::to_string(g.replica_id), "this site's place among the plan's sites"},
        {"--fault_tolerance.group_size", std::to_string(g.group_size), "the plan's sites"},
        {"--parallelism.tensor_parallel_degree", std::to_string(plan.tp), "the plan's tp"},
        {"--parallelism.pipeline_parallel_degree", std::to_string(plan.pp), "the plan's pp"},
        {"--parallelism.data_parallel_shard_degree", std::to_string(g.dp), "the plan's replicas in this site"},
        // Without PP torchtitan accumulates local batches up to the global batch, one plan
        // micro-batch each; with PP a local batch is the replica's whole step, cut into the plan's
        // micro-batches by the pipeline schedule.
        {"--training.local_batch_size", std::to_string(plan.pp > 1 ? plan.micro_batch * plan.num_micro_batches : plan.micro_batch),
         plan.pp > 1 ? "the plan's micro-batches per replica step" : "the plan's micro-batch"},
        {"--training.global_batch_size", std::to_string(plan.job.global_batch),
         "the job's global batch (torchtitan splits it over the replica groups)"},
        {"--training.seq_len", std::to_string(plan.job.seq_len), "the job's sequence length"},
        {"--activation_checkpoint.mode", to_string(plan.job.recompute), "the plan's activation recomputation"},
    };
    if (plan.pp > 1)
        flags.push_back({"--parallelism.pipeline_parallel_microbatch_size", std::to_string(plan.micro_batch),
                         "the plan's micro-batch"});
    if (sync.outer_precision == OuterPrecision::int8)
        flags.push_back({"--fault_tolerance.should_quantize", "", "8-bit pseudo-gradients"});
    if (sync.streaming)
        flags.push_back({"--fault_tolerance.fragment_sync_delay", std::to_string(sync_delay_steps(plan)),
                         "inner steps the predicted outer all-reduce takes"});
    std::vector<std::string> out;
    for (const Flag& f : flags) {
        const size_t i = find_flag(command, f.name);
        if (i == std::string::npos) {
            out.push_back(f.value.empty() ? f.name : f.name + "=" + f.value);
            continue;
        }
        if (f.value.empty()) continue;
        const std::string given = flag_value_at(command, i);
        if (given != f.value)
            throw InputError("launch", 0, f.name,
                             "the command gives " + f.name + " " + given + " but the plan gives " + f.value + " (" + f.why + ")");
    }
    return out;
}

}  // namespace spiderflow
