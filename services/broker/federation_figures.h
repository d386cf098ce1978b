// The federation as the broker's monitoring shows it (GET /metrics and the status page): each
// cluster's GPUs and last update, each link's declared and measured figures, the cross-site jobs
// by state. Gathered in one pass under the broker's lock, then written out without it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "services/broker/federation_state.h"
#include "services/coalloc/coallocator.h"

namespace spiderflow::broker {

struct FederationFigures {
    struct Cluster {
        std::string name;
        int nodes = 0;
        int gpus = 0;
        int free_gpus = 0;       // free now, as the merged view has them (0 before it published)
        int64_t updated_at = 0;  // last accepted update, Unix seconds; 0 = never published
    };
    struct Link {
        std::string name;        // "a-b" as the topology names it
        double declared_Bps = 0;
        double declared_latency_s = 0;  // one way, as the topology file gives it
        bool measured = false;   // the figures below are the newest a cluster published
        double measured_Bps = 0;
        double measured_latency_s = 0;
        int64_t measured_at = 0;
        std::string measured_by;
    };
    std::vector<Cluster> clusters;
    std::vector<Link> links;
    uint64_t epoch = 0;
    bool active = true;                     // this broker decides (not a standby)
    std::map<std::string, int> xjobs;       // cross-site jobs by state name, every state named
};

FederationFigures federation_figures(const FederationState& state, const coalloc::Coallocator& jobs, int64_t now);

}  // namespace spiderflow::broker
