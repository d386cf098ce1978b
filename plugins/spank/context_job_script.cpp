// slurmd's job prolog/epilog (S_CTX_JOB_SCRIPT, as root, once per job on each node): the job's
// WAN traffic class goes on at job start and comes off at job end. Slurm runs the epilog for
// every job that had a prolog on the node, also when it failed or was cancelled, so removal
// does not depend on the job ending well. Both fail open: a prolog error would drain the node,
// so a tc failure is logged and the job runs unshaped.
#include <cstdlib>
#include <string>

#include "common/coflow/command_runner.h"
#include "services/slurmjob/job_traffic.h"
#include "plugins/spank/stepd_state.h"
#include "common/util/parse_number.h"

namespace spiderflow::plugin::spank {
namespace {

// The prolog/epilog environment carries the job's spank env under the SPANK_ prefix.
std::string script_env(const std::string& name) {
    for (const std::string& n : {"SPANK_" + name, name}) {
        if (const char* v = std::getenv(n.c_str()); v != nullptr && *v != '\0') return v;
    }
    return {};
}

int job_id(spank_t sp) {
    uint32_t id = 0;
    if (spank_get_item(sp, S_JOB_ID, &id) == ESPANK_SUCCESS && id > 0) return static_cast<int>(id);
    return to_int<int>(script_env("SLURM_JOB_ID")).value_or(0);
}

}  // namespace

int job_script_prolog(spank_t sp) {
    const SpiderflowConf& cfg = plugin_state().config;
    if (!cfg.enabled || !cfg.traffic_control) return 0;
    const int job = job_id(sp);
    coflow::ProcessRunner runner;
    const TcOutcome r = start_job_traffic(cfg, job, script_env(env::kTrafficLevel), runner);
    if (r.done) slurm_info("spiderflow: %s", r.message.c_str());
    else slurm_error("spiderflow: job %d runs without its traffic class: %s", job, r.message.c_str());
    return 0;
}

int job_script_epilog(spank_t sp) {
    const SpiderflowConf& cfg = plugin_state().config;
    if (!cfg.enabled || !cfg.traffic_control) return 0;
    const int job = job_id(sp);
    coflow::ProcessRunner runner;
    const TcOutcome r = end_job_traffic(cfg, job, runner);
    if (r.done) slurm_info("spiderflow: %s", r.message.c_str());
    else slurm_error("spiderflow: job %d: traffic class not removed: %s", job, r.message.c_str());
    return 0;
}

}  // namespace spiderflow::plugin::spank
