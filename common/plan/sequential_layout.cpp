#include "common/plan/sequential_layout.h"

#include <string>

#include "common/plan/layer_split.h"
#include "common/util/errors.h"

namespace spiderflow {

namespace {
void need(bool ok, const char* field, const std::string& what) {
    if (!ok) throw InputError("job spec", 0, field, what);
}
}  // namespace

Plan make_sequential_plan(const Topology& topology, const JobSpec& job, int tp, int pp, int dp, int micro_batch) {
    need(tp >= 1 && tp <= 1024, "tp", "tp " + std::to_string(tp) + " must be 1..1024");
    need(pp >= 1, "pp", "pp " + std::to_string(pp) + " must be at least 1");
    need(dp >= 1 && dp <= 10000000, "dp", "dp " + std::to_string(dp) + " must be at least 1");
    need(pp <= job.model.layers, "pp",
         "pp " + std::to_string(pp) + " exceeds the model's " + std::to_string(job.model.layers) + " layers");
    if (micro_batch <= 0) micro_batch = job.micro_batch > 0 ? job.micro_batch : 1;
    const long long per_step = static_cast<long long>(micro_batch) * dp;
    need(job.global_batch > 0 && job.global_batch % per_step == 0, "global_batch",
         "global_batch " + std::to_string(job.global_batch) + " is not divisible by micro_batch*dp = " +
             std::to_string(micro_batch) + "*" + std::to_string(dp));

    Plan plan;
    plan.job = job;
    plan.job.micro_batch = micro_batch;
    plan.tp = tp;
    plan.pp = pp;
    plan.dp = dp;
    plan.micro_batch = micro_batch;
    plan.num_micro_batches = static_cast<int>(job.global_batch / per_step);
    plan.policy = "sequential";
    plan.layers_per_stage = megatron_even_split(job.model.layers, pp);  // never empty: pp <= layers

    const size_t want = static_cast<size_t>(pp) * static_cast<size_t>(dp);
    plan.cells.reserve(want);
    for (int c = 0; c < static_cast<int>(topology.clusters.size()) && plan.cells.size() < want; ++c) {
        const Cluster& cluster = topology.clusters[static_cast<size_t>(c)];
        for (const int n : cluster.node_order()) {
            if (plan.cells.size() >= want) break;
            // TP never leaves a node; a user may name a tp wider than its NVLink domain.
            for (const int g : tp_group_first_gpus(cluster.nodes[static_cast<size_t>(n)], tp, TpAlign::node)) {
                if (plan.cells.size() >= want) break;
                plan.cells.push_back(StageCell{c, n, g});
            }
        }
    }
    if (plan.cells.size() < want) {
        throw InfeasibleError("tp=" + std::to_string(tp) + " pp=" + std::to_string(pp) + " dp=" + std::to_string(dp) +
                              " needs " + std::to_string(want) + " groups of " + std::to_string(tp) +
                              " GPUs inside one node; the topology has " + std::to_string(plan.cells.size()));
    }
    return plan;
}

}  // namespace spiderflow
