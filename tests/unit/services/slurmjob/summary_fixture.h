// A home part's plan summary over two clusters, alpha (2 nodes) and beta (1 node), as job_submit
// writes it for a cross-site plan: shared by the summary's tests and the agent's hand-off tests.
#pragma once

#include "services/slurmjob/plan_summary.h"

namespace spiderflow::slurmjob::test {

inline PlanSummary alpha_beta_summary() {
    PlanSummary s;
    s.model = "llama3-8b";
    s.tp = 8;
    s.pp = 3;
    s.dp = 1;
    s.micro_batch = 1;
    s.nodes = 2;
    s.gpus_per_node = 8;
    s.clusters = "alpha,beta";
    s.wan_rtt_ms = "40";
    s.wan_gbps = "10";
    s.parts = {SummaryPart{"alpha", 2, 8, 16}, SummaryPart{"beta", 1, 8, 8}};
    return s;
}

}  // namespace spiderflow::slurmjob::test
