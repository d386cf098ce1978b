#include <algorithm>
#include <limits>

#include "common/coflow/schedulers.h"
#include "common/util/errors.h"

namespace spiderflow::coflow {

double Scheduler::review_after(const SchedView&) const { return std::numeric_limits<double>::infinity(); }

namespace {

struct Entry {
    const char* name;
    const char* summary;
    std::unique_ptr<Scheduler> (*make)();
};

// Sorted by name; the one table that maps scheduler names to implementations.
const Entry kSchedulers[] = {
    {"aalo", "D-CLAS least-attained-service queues, no prior knowledge (Chowdhury & Stoica, SIGCOMM 2015)",
     &make_aalo_scheduler},
    {"fair", "per-flow max-min fair sharing (what TCP/NCCL give without coflow scheduling)", &make_fair_scheduler},
    {"hermod", "Hermod intra-job priority tiers (Coflow Scheduling for LLM Training, SIGCOMM 2025 poster)",
     &make_hermod_scheduler},
    {"llm", "ours: Hermod order inside a job + progress/compute-window aware order across jobs",
     &make_llm_scheduler},
    {"sincronia", "BSSI ordering, priorities only (Agarwal et al., SIGCOMM 2018)", &make_sincronia_scheduler},
    {"varys", "SEBF ordering + MADD rates (Chowdhury et al., SIGCOMM 2014)", &make_varys_scheduler},
};

}  // namespace

std::vector<std::string> scheduler_names() {
    std::vector<std::string> out;
    for (const auto& e : kSchedulers) out.emplace_back(e.name);
    return out;
}

std::string scheduler_summary(const std::string& name) {
    for (const auto& e : kSchedulers)
        if (name == e.name) return e.summary;
    return {};
}

std::unique_ptr<Scheduler> make_scheduler(const std::string& name) {
    for (const auto& e : kSchedulers)
        if (name == e.name) return e.make();
    std::string known;
    for (const auto& n : scheduler_names()) known += (known.empty() ? "" : ", ") + n;
    throw InputError("scheduler", 0, "", "unknown scheduler '" + name + "' (known: " + known + ")");
}

}  // namespace spiderflow::coflow
