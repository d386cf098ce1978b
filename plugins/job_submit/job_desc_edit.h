// Reading and rewriting a job_desc_msg_t (Slurm's public struct). Everything Slurm later frees
// is allocated with Slurm's allocator.
#pragma once

#include <optional>
#include <string>
#include <vector>

extern "C" {
#include <slurm/slurm.h>
}

#include "services/slurmjob/submit_planner.h"

namespace spiderflow::plugin {

// The plugins are thin adapters over the Slurm-free job code.
using namespace spiderflow::slurmjob;

std::vector<std::string> env_vector(char** env, uint32_t size);
// What the job asked of Slurm itself (GPUs, nodes, tasks), each only when given.
SlurmRequest slurm_request(const job_desc_msg_t* job);
// Applies the rewrite: node count, GPUs and tasks per node, GPU-type constraint, spank env.
void apply_rewrite(job_desc_msg_t* job, const SubmitRewrite& rewrite, bool constrain_gpu_type);

}  // namespace spiderflow::plugin
