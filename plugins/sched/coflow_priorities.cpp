#include "plugins/sched/coflow_priorities.h"

#include <ctime>
#include <exception>
#include <stdexcept>
#include <vector>

#include "plugins/slurm_conf_file.h"
#include "plugins/slurm_internal.h"
#include "services/launch/launch_contract.h"
#include "services/slurmjob/coflow_levels.h"
#include "services/slurmjob/plan_summary.h"
#include "services/slurmjob/spiderflow_conf.h"

namespace spiderflow::plugin {
namespace {

struct Seen {
    slurmjob::CoflowJob job;
    bool pending = false;
    std::string level;   // what its spank env holds now, "" when nothing
};

std::string spank_level(const job_record_t* job) {
    const std::string prefix = std::string(env::kTrafficLevel) + "=";
    for (uint32_t i = 0; job->spank_job_env != nullptr && i < job->spank_job_env_size; ++i) {
        const char* e = job->spank_job_env[i];
        if (e != nullptr && std::string(e).rfind(prefix, 0) == 0) return e + prefix.size();
    }
    return {};
}

}  // namespace

void CoflowPriorities::cycle() {
    std::string problem;
    try {
        const slurmjob::SpiderflowConf conf = slurmjob::load_spiderflow_conf(site_conf_path());
        if (!conf.enabled || !conf.coflow_levels || conf.topology.empty()) return;
        std::string why;
        const auto topology = topology_.get(conf.topology, conf.topology_format, &why);
        if (!topology) throw std::runtime_error(why);

        std::vector<Seen> seen;
        slurmctld_lock_t job_read = {NO_LOCK, READ_LOCK, NO_LOCK, NO_LOCK, NO_LOCK};
        lock_slurmctld(job_read);
        ListIterator it = list_iterator_create(job_list);
        while (auto* job = static_cast<job_record_t*>(list_next(it))) {
            const bool pending = IS_JOB_PENDING(job);
            if ((!pending && !IS_JOB_RUNNING(job)) || job->admin_comment == nullptr) continue;
            slurmjob::PlanSummary s;
            if (!slurmjob::parse_plan_summary(job->admin_comment, &s) || s.plan_data.empty()) continue;
            seen.push_back({{static_cast<int>(job->job_id), job->admin_comment}, pending, spank_level(job)});
        }
        list_iterator_destroy(it);
        unlock_slurmctld(job_read);
        if (seen.empty()) {
            memo_.jobs.clear();
            return;
        }

        std::vector<slurmjob::CoflowJob> jobs;
        for (const Seen& s : seen) jobs.push_back(s.job);
        std::vector<std::string> skipped;
        const std::map<int, int> levels = slurmjob::coflow_levels(jobs, *topology, &skipped, &memo_);
        for (const std::string& s : skipped) debug("spiderflow: sched/spiderflow: no coflow level for %s", s.c_str());

        slurmctld_lock_t job_write = {NO_LOCK, WRITE_LOCK, NO_LOCK, NO_LOCK, NO_LOCK};
        lock_slurmctld(job_write);
        for (const Seen& s : seen) {
            auto level = levels.find(s.job.job);
            if (!s.pending || level == levels.end() || s.level == std::to_string(level->second)) continue;
            job_record_t* job = find_job_record(static_cast<uint32_t>(s.job.job));
            if (job == nullptr || !IS_JOB_PENDING(job)) continue;
            env_array_overwrite(&job->spank_job_env, env::kTrafficLevel, std::to_string(level->second).c_str());
            job->spank_job_env_size = envcount(job->spank_job_env);
            last_job_update = time(nullptr);   // saved with the job's state
            info("spiderflow: sched/spiderflow: job %u traffic level %d (coflow order, smallest WAN bottleneck first)",
                 job->job_id, level->second);
        }
        unlock_slurmctld(job_write);
    } catch (const std::exception& e) {
        problem = e.what();
    }
    if (problem != last_problem_ && !problem.empty()) {
        error("spiderflow: sched/spiderflow: coflow levels not applied: %s", problem.c_str());
    }
    last_problem_ = problem;
}

}  // namespace spiderflow::plugin
