// A step of the submit decision that may end it (outcome, message, and for a rejection what the
// user got wrong), shared by the steps in request_reconcile, request_shape and cross_site_shape.
#pragma once

#include <string>

#include "services/slurmjob/submit_planner.h"

namespace spiderflow::slurmjob {

struct Stop {
    Outcome outcome;
    std::string message;
    RejectKind kind = RejectKind::spec;
};

// "1 GPU", "8 GPUs".
inline std::string gpu_words(int n) { return std::to_string(n) + (n == 1 ? " GPU" : " GPUs"); }

}  // namespace spiderflow::slurmjob
