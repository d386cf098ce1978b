// Checks that catch the site-config mistakes that burn multi-site placement in practice.
// Each Finding names the element (node, switch, link, cluster pair), what is wrong and the fix.
// `spiderflow topo check` prints them; exit status 1 when there is any.
#pragma once

#include <string>
#include <vector>

#include "common/topology/slurm_conf.h"
#include "common/topology/topology.h"

namespace spiderflow {

enum class Severity { error, warning };
const char* severity_name(Severity s);  // "error" / "warning"

struct Finding {
    Severity severity = Severity::error;
    std::string what;      // the element: "node n05", "switch leaf2", "link us-east<->eu-west"
    std::string message;   // what is wrong
    std::string fix;       // what to change
    std::string where;     // "file:line" when known, else empty
};

// Raw Slurm config: ClusterName, nodes in slurm.conf missing from topology.conf and the
// reverse, undefined or self/cyclic switch references, switches reaching no node, a tree with
// several roots (a tier that disconnects it), nodes under two leaf switches, partitions naming
// undefined nodes, GPU counts that disagree between slurm.conf Gres= and gres.conf, GresTypes
// without gpu.
std::vector<Finding> check_slurm_files(const slurm::SlurmFiles& site);

// What `spiderflow topo check slurm.conf` reports: check_slurm_files(), and when those find no
// error (only then can a Topology be built) check_topology() of the cluster they describe, less
// the switch-tree findings the raw files gave already (with their lines).
std::vector<Finding> check_slurm_site(const slurm::SlurmFiles& site);

// Any Topology (finalized or not): per cluster the same switch-tree checks plus GPU facts;
// between clusters, links with missing/invalid figures and cluster pairs with no path.
std::vector<Finding> check_topology(const Topology& topo);

// One cluster of our topology (`ours`, read from `ours_file`) against the same cluster as the
// site's Slurm files describe it (`theirs`, built from `site` by topology_from_slurm_files):
// GPU nodes in one only (errors when only ours: the planner may place ranks where Slurm cannot
// run them), GPU counts or types that differ, leaf switches and the switch tree (warnings).
// Each finding points at the line in slurm.conf or topology.conf when there is one.
std::vector<Finding> compare_with_slurm(const Cluster& ours, const std::string& ours_file, const Cluster& theirs,
                                        const slurm::SlurmFiles& site);

size_t count_errors(const std::vector<Finding>& findings);

}  // namespace spiderflow
