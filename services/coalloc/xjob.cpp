#include "services/coalloc/xjob.h"

#include <cctype>

#include "common/util/name_table.h"

namespace spiderflow::coalloc {
namespace {

constexpr const char* kStateNames[] = {"queued",  "negotiating", "reserving", "starting",
                                       "running", "ending",      "completed", "failed"};

}  // namespace

const char* state_name(XJobState s) { return kStateNames[static_cast<int>(s)]; }

bool state_from_name(const std::string& name, XJobState* out) { return enum_from_name(kStateNames, name, out); }

bool finished(XJobState s) { return s == XJobState::Completed || s == XJobState::Failed; }

int run_number(const XJob& job) { return 1 + job.requeues + job.failure_requeues; }

int world_size(const XJob& job) { return first_rank(job, job.parts.size()); }

int first_rank(const XJob& job, size_t part) {
    int rank = 0;
    for (size_t k = 0; k < part && k < job.parts.size(); ++k) rank += job.parts[k].spec.ranks;
    return rank;
}

std::string rendezvous(const XJob& job) {
    if (job.parts.empty()) return "";
    const Part& p = job.parts[0];
    const std::string host = !p.address.empty() ? p.address : p.nodes.empty() ? std::string() : p.nodes[0];
    return host.empty() ? std::string() : host + ":" + std::to_string(job.master_port);
}

bool uses_home_job(const XJob& job, size_t part) {
    return job.home_job != 0 && run_number(job) == 1 && part < job.parts.size() && job.parts[part].spec.cluster == job.home;
}

std::string part_tag(const XJob& job, size_t part) {
    // Slurm takes letters, digits, '_' and '-' in a reservation name anywhere.
    std::string id;
    for (char c : job.id) id += std::isalnum(static_cast<unsigned char>(c)) || c == '-' ? c : '_';
    return "spiderflow-" + id + "-a" + std::to_string(job.attempt) + "-p" + std::to_string(part);
}

bool part_pending(const Part& p) { return !p.to_release.empty() || (p.job_id != 0 && !p.ended); }

bool part_started(const Part& p) { return p.running || p.completed_at != 0; }

}  // namespace spiderflow::coalloc
