// The launch of a DiLoCo plan: torchtitan with torchft's DiLoCo (torchtitan/experiments/ft).
// Each site is one torchft replica group, a torchtitan instance of its own (its own torchrun
// rendezvous inside the site); the groups meet through torchft's lighthouse and average
// pseudo-gradients every H steps. doc/diloco.md says what the framework must provide.
#pragma once

#include <string>
#include <vector>

#include "common/plan/plan.h"

namespace spiderflow {

// One site's replica group: its place among the plan's sites (ascending cluster index, the
// order of the outer ring) and its share of the plan.
struct DilocoGroup {
    int replica_id = 0;     // --fault_tolerance.replica_id
    int group_size = 0;     // --fault_tolerance.group_size: the plan's sites
    int nodes = 0;          // nodes of this site the plan uses
    int gpus_per_node = 0;  // processes per node (the plan's cells on the busiest node x tp)
    int dp = 0;             // data-parallel replicas inside the site (FSDP shard degree)
};

// The group of `cluster` (a cluster index of the plan). Throws InputError when the plan has no
// cell there or is not a DiLoCo plan.
DilocoGroup diloco_group(const Plan& plan, int cluster);

// torchtitan flags for that group: fault tolerance with semi_sync_method=diloco, sync_steps = H,
// should_quantize for 8-bit pseudo-gradients (torchft's quantisation is fp8, one byte as int8),
// fragment_sync_delay for streaming, and the group's parallel degrees, batch and sequence
// length. A flag the command already gives with the same value is not repeated; another value
// is an InputError naming both.
std::vector<std::string> torchtitan_diloco_args(const Plan& plan, const DilocoGroup& group,
                                                const std::vector<std::string>& command);

}  // namespace spiderflow
