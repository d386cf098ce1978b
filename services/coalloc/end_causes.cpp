#include "services/coalloc/end_causes.h"

#include "services/coalloc/coallocator.h"

namespace spiderflow::coalloc {
namespace {

constexpr const char* kProgramFailed = "FAILED";

}  // namespace

bool program_failure(const std::string& job_reason) {
    return job_reason.find(std::string(" ended: ") + kProgramFailed) != std::string::npos;
}

bool ended_by_slurm(const std::string& reason) {
    return !reason.empty() && reason.rfind(kProgramFailed, 0) != 0 && reason.rfind(kCancelledByBroker, 0) != 0;
}

bool requeueable(const std::string& job_reason) {
    for (const char* cause : {" ended: NODE_FAIL", " ended: PREEMPTED", " ended: BOOT_FAIL", " ended: FAILED",
                              " not heard from for over "}) {
        if (job_reason.find(cause) != std::string::npos) return true;
    }
    if (job_reason.find(std::string(" ended: ") + kRequeuedBySlurm) != std::string::npos) return true;
    if (job_reason.find(std::string(" ended: ") + kIsolatedFromBroker) != std::string::npos) return true;
    return false;
}

}  // namespace spiderflow::coalloc
