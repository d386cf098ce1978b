// How much slower each running cross-site job trains because others share its WAN links, as the
// flow-level simulator says (common/coflow): the jobs whose routes share a link are simulated
// together for a few iterations under the network policy, and what each job's steady iteration
// time grows by over the same measurement of the job alone is added to the cost model's
// iteration time. A job alone runs at exactly the cost model's speed; the flow simulator decides
// only what sharing costs.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/coflow/network.h"
#include "common/coflow/scheduler.h"
#include "common/model/catalog.h"
#include "common/plan/plan.h"
#include "common/topology/topology.h"

namespace spiderflow::fedsim {

struct RunningPlan {
    std::string job;
    const Plan* plan = nullptr;
};

class WanSharing {
public:
    // Throws InputError for an unknown scheduler name.
    WanSharing(const Topology& topology, const Catalog& catalog, const std::string& scheduler);
    // Slowdown (>= 1: the cost model's iteration time plus what sharing adds, over the cost
    // model's) of every job given; 1 for a job that crosses no WAN link or shares
    // none with another. Results are cached by the set of jobs that share links.
    std::map<std::string, double> slowdowns(const std::vector<RunningPlan>& running);
    // The job's steady iteration time alone on the network, as the flow simulator says (cached).
    double period_alone(const RunningPlan& job);
    long simulations() const { return simulations_; }
    double wall_s() const { return wall_s_; }

private:
    double steady_period(const std::vector<RunningPlan>& group, std::vector<double>& periods);
    std::vector<int> links_of(const Plan& plan) const;

    const Topology& topology_;
    const Catalog& catalog_;
    coflow::Network net_;
    std::unique_ptr<coflow::Scheduler> scheduler_;
    std::map<std::string, double> alone_;                    // job -> period alone
    std::map<std::string, std::vector<double>> groups_;      // sorted job ids -> periods
    long simulations_ = 0;
    double wall_s_ = 0;
};

}  // namespace spiderflow::fedsim
