// `spiderflow topo check`, implemented in topo_check.cpp; cmd_topo.cpp forwards to it.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/topology/checks.h"

namespace spiderflow::cli {

// A finding as `topo check --format json` and `doctor --format json` write it.
nlohmann::ordered_json finding_to_json(const Finding& f);

// One cluster of a topology file (ours, or any reader's: `reader` empty = from the file name)
// against the site's Slurm files: what `topo check --topology --slurm-conf` prints, and what
// `spiderflow doctor` reuses. `cluster` empty = slurm.conf's ClusterName. When the two cannot be
// compared (the Slurm files do not make a topology, the file has no such cluster) `error` says
// why, in the words topo check prints. Throws InputError when a file cannot be read.
struct SlurmComparison {
    std::string cluster;
    std::vector<Finding> findings;
    std::string error;
};
SlurmComparison compare_topology_with_slurm(const std::string& topology, const std::string& reader,
                                            const std::string& slurm_conf, const std::string& cluster);

// args[0] is "check", the rest its options. Returns an exit status as in command.h.
int run_topo_check(const std::vector<std::string>& args);

}  // namespace spiderflow::cli
