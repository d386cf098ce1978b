// How a plan compares with what the user could ask for instead: the best plan that stays in one
// site, the best plan on fewer GPUs, and (a plan that at-most made smaller) the best on all the
// GPUs asked for. A plan that crosses sites at a loss says so plainly and
// names the request that does better (`spiderflow plan`'s text output).
#pragma once

#include <string>
#include <vector>

#include "common/planner/planner.h"

namespace spiderflow {

struct PlanComparison {
    std::string what;           // "the best plan in one site", "the best plan on fewer GPUs"
    bool found = false;         // false: no such plan (why says so)
    std::string why;
    std::string clusters;       // where it runs ("oregon" or "oregon, tokyo")
    int gpus = 0;
    double iteration_s = 0;
    double speedup = 0;         // the chosen plan's iteration time / this one's: > 1, this one is faster
    std::string request;        // the options that ask for it ("--gpus 128 --allow oregon")
};

// Plans the alternatives of `chosen` (planned for `request`) with `planner`. Never throws; an
// alternative that cannot be planned is reported with why. With time_limit_s > 0 the whole
// comparison stops by then (each planner run gets at most the time left; no run starts after
// it): one site is one planner run per cluster, seconds at 1,024 clusters, and job_submit
// abandons a comparison at its budget on a thread that would otherwise finish them all beside
// slurmctld. One-site candidates go largest first (GPUs the job could use there x their peak),
// so a cut-short comparison has tried the likeliest; what it found is a real alternative.
std::vector<PlanComparison> compare_plan(const PlannerPolicy& planner, const PlanRequest& request, const CostModel& cost,
                                         const Plan& chosen, double time_limit_s = 0);

// One line each, and a plain verdict when an alternative is faster.
std::string comparison_text(const std::vector<PlanComparison>& comparisons, const Plan& chosen);

// The fastest alternative that beats the chosen plan, or null: the request does not pay.
const PlanComparison* faster_alternative(const std::vector<PlanComparison>& comparisons);
// The verdict, the same words in every front end: "This request does not pay: the best plan in
// one site runs 1.89x faster on 4 GPUs (fewer). Ask for ASK." (ASK in the front end's options).
std::string does_not_pay(const PlanComparison& faster, const Plan& chosen, const std::string& ask);

}  // namespace spiderflow
