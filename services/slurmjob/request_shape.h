// The request Slurm gets from a plan: the same GPUs and tasks on every node, so no distribution
// can put a rank on a device that is not there; the user's explicit choices either agree or are
// named. A plan over several clusters is shaped by shape_cross_site (cross_site_shape.h).
#pragma once

#include <optional>
#include <string>

#include "common/plan/plan.h"
#include "common/topology/topology.h"
#include "services/slurmjob/submit_stop.h"

namespace spiderflow::slurmjob {

std::optional<Stop> shape_request(const Plan& plan, const Topology& topology, int cluster, const Cluster& here,
                                  const SlurmRequest& req, GpuCountMode mode, SubmitRewrite* r);

// The user's --gpus and the plan's count agree, or the user let SpiderFlow choose
// (--llm-gpus-mode: at-most allows fewer, best any count).
bool count_allowed(const SlurmRequest& req, int world, GpuCountMode mode);

// One task per GPU (srun launches the ranks) or one per node (torchrun launches them): what the
// user's -n / --ntasks-per-node say, for a job of `nodes` nodes with `gpn` GPUs each, in `out`.
std::optional<Stop> choose_tasks_per_node(const SlurmRequest& req, int nodes, int gpn, int world, int* out);

// Counts Slurm can be asked for: whole multiples of this cluster's node size around `gpus`
// ("--gpus=8 or --gpus=16"; empty when the cluster has no GPUs).
std::string even_counts_near(int gpus, const Cluster& here);

}  // namespace spiderflow::slurmjob
