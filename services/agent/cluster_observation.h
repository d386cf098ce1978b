// What an agent saw of its cluster in one look at slurmctld, as plain data: the part of Slurm's
// node, job and reservation records that placement needs. Kept apart from libslurm so the step
// from an observation to a SiteState part is unit-tested without a running controller.
#pragma once

#include <string>
#include <vector>

#include "common/site/site_types.h"

namespace spiderflow::agent {

struct ObservedNode {
    std::string name;
    NodeState state = NodeState::up;
    std::string reason;
    std::vector<std::string> features;
};

// A job holding nodes (running, suspended or completing) or a reservation.
struct ObservedHold {
    std::string name;                 // job id ("1234") or reservation name
    SiteTime start = 0;
    SiteTime end = kForever;
    struct Share {
        std::string node;
        int gpus = -1;                // -1: the node's whole capacity (whole-node reservations)
        int cores = 0;
    };
    std::vector<Share> nodes;
    int total_gpus = -1;              // reservations: the GPUs its TRES names; -1 = whole nodes
};

struct ClusterObservation {
    std::string cluster;              // Slurm's ClusterName
    SiteTime taken_at = 0;
    std::vector<ObservedNode> nodes;
    std::vector<ObservedHold> jobs;
    std::vector<ObservedHold> reservations;
};

}  // namespace spiderflow::agent
