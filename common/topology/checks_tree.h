// Internal to the checks: one switch-tree check shared by the Slurm config (topology.conf) and
// our Topology (Cluster::switches), so both report the same mistakes the same way.
#pragma once

#include <string>
#include <vector>

#include "common/topology/checks.h"
#include "common/util/did_you_mean.h"

namespace spiderflow::checks {

struct TreeSwitch {
    std::string name;
    std::vector<std::string> children;
    std::vector<std::string> nodes;
    std::string where;  // "topology.conf:12", or empty
};

struct TreeInput {
    std::vector<TreeSwitch> switches;
    std::vector<std::string> nodes;       // every node the cluster defines
    std::string context;                  // prefix of Finding::what, e.g. "cluster 'a': "
    bool slurm_syntax = true;             // fixes in topology.conf words, else our JSON's
};

void check_switch_tree(const TreeInput& in, std::vector<Finding>& out);

// Helpers shared by the check files.
std::string name_list(const std::vector<std::string>& names, const std::string& singular,
                      const std::string& plural);
using spiderflow::did_you_mean;  // common/util/did_you_mean.h
std::string where(const std::string& file, int line);

}  // namespace spiderflow::checks
