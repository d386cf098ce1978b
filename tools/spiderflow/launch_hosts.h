// How `spiderflow launch` makes Slurm number the tasks as the plan does: the host list in rank
// order (the same plan_rank_slots() the SPANK plugin uses for RANK), handed to srun as
// SLURM_HOSTFILE with --distribution=arbitrary.
#pragma once

#include <string>
#include <vector>

#include "common/plan/plan.h"
#include "common/topology/topology.h"

namespace spiderflow::cli {

// One host per task: per rank for the srun launcher, per node (in node-rank order) for torchrun.
std::vector<std::string> launch_hosts(const Plan& plan, const Topology* topology, const std::vector<std::string>& job_nodes,
                                      const std::string& launcher);

struct HostFile {
    std::string path;  // empty: none written
};
// A private temporary file ($TMPDIR, else /tmp) holding one host per line.
HostFile write_hostfile(const std::vector<std::string>& hosts);

// Runs the srun step, forwards SIGINT/SIGTERM to it, removes the host file when it ends, and
// returns its exit status.
int run_and_wait(const std::vector<std::string>& step, const HostFile& hostfile);

}  // namespace spiderflow::cli
