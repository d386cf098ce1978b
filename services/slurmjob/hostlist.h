// Expands Slurm host lists ("n[1-3,7],gpu-a[01-02]") without libslurm, which plugins must not link.
#pragma once

#include <string>
#include <vector>

namespace spiderflow::slurmjob {

// Throws InputError(source "hostlist") on unbalanced brackets or a bad range.
std::vector<std::string> expand_hostlist(const std::string& list);

// Expands SLURM_STEP_TASKS_PER_NODE / SLURM_TASKS_PER_NODE ("8(x3),4") to one count per node.
std::vector<int> expand_tasks_per_node(const std::string& spec);

}  // namespace spiderflow::slurmjob
