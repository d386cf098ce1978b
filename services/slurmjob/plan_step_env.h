// The SPIDERFLOW_* settings a planned job's steps need (launch_contract.h): the degrees, the links
// its plan crosses and the plan itself. job_submit puts them in a job's environment; the broker
// gives them to every part of a cross-site job it planned anew after a failure.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace spiderflow {
struct Plan;
struct Topology;
}  // namespace spiderflow

namespace spiderflow::slurmjob {

std::vector<std::pair<std::string, std::string>> plan_step_env(const Plan& plan, const Topology& topology);

}  // namespace spiderflow::slurmjob
