// The traffic levels slurmctld's scheduler thread (sched/spiderflow) gives SpiderFlow jobs: each
// job's cross-cluster traffic per iteration is one coflow, ordered smallest effective bottleneck
// first (Varys' SEBF: the time its busiest WAN route needs for the bytes it carries, at the
// route's bandwidth), and the order becomes levels with classes_for_order(). A job whose plan
// crosses no cluster boundary has no WAN coflow and gets no level (best effort, the default).
// The level reaches a job that has not started through its spank env (SPIDERFLOW_TRAFFIC_LEVEL:
// the prolog's tc class and the steps' NCCL_IB_TC/SL read it); running jobs keep theirs.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/topology/topology.h"

namespace spiderflow::slurmjob {

struct CoflowJob {
    int job = 0;
    std::string summary;   // the job's AdminComment (plan summary with its carried plan)
};

// Seconds the job's per-iteration WAN bytes need on its busiest route; nullopt when the summary
// carries no plan or the plan sends nothing between clusters. Throws InputError on a plan that
// does not decode or does not fit the topology.
std::optional<double> wan_bottleneck_s(const std::string& summary, const Topology& topology);

// What wan_bottleneck_s() answered per job, kept between cycles: a waiting job's plan does not
// change, and decoding a thousand carried plans every cycle is what a scheduler thread must not
// spend its time on. An entry is trusted only for the same summary on the same topology.
struct BottleneckMemo {
    struct Entry {
        std::string summary;
        std::optional<double> bottleneck;
        std::string error;   // why the plan could not be read; empty when it could
    };
    const Topology* topology = nullptr;
    std::map<int, Entry> jobs;
};

// job id -> level, for every job with WAN traffic, highest priority (0) first in SEBF order;
// ties keep job-id order. A job whose plan cannot be read is left out (why goes to `skipped`).
// With a memo, only summaries it has not seen are decoded, and jobs not passed are forgotten.
std::map<int, int> coflow_levels(const std::vector<CoflowJob>& jobs, const Topology& topology,
                                 std::vector<std::string>* skipped = nullptr, BottleneckMemo* memo = nullptr);

}  // namespace spiderflow::slurmjob
