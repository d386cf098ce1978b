// Coflow enforcement for one job on one node, as the site config asks (doc/coflow.md): the job's
// HTB class on the WAN interface at job start, gone at job end, changed while it runs; and the
// NCCL variables that make the job's traffic carry its class. Slurm-free: the SPANK plugin's
// job prolog/epilog hooks, `spiderflow coflow set-class`, `spiderflow launch` and the tests all
// call these functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/coflow/command_runner.h"
#include "common/coflow/traffic_class.h"
#include "common/plan/nccl_env.h"
#include "services/launch/launch_contract.h"
#include "services/slurmjob/spiderflow_conf.h"

namespace spiderflow::slurmjob {

// A job nobody gave a level runs at best effort.
constexpr int kDefaultTrafficLevel = coflow::TrafficClass::kLevels - 1;
// The job's level travels as env::kTrafficLevel (spank env from job_submit or the controller, or
// the job's own environment for `spiderflow launch`).
// Serialises job starts and ends on one node (they read, then change, the same interface).
constexpr const char* kTcLockPath = "/run/lock/spiderflow-tc.lock";

// "" -> kDefaultTrafficLevel; "0".."5" -> that level. Throws InputError otherwise.
int parse_traffic_level(const std::string& text);

coflow::TcLink wan_link(const SpiderflowConf& config);
coflow::TcMatch wan_match(const SpiderflowConf& config);

// The decisions, given what the interface has now. Start: the HTB root unless it is there
// (replacing it would drop other jobs' classes), then the job's class and filter. End: the
// job's filter and class, and the root too when no other job's class is left.
std::vector<coflow::TcCommand> job_start_commands(const SpiderflowConf& config, const coflow::TrafficClass& c,
                                                  bool root_present);
std::vector<coflow::TcCommand> job_end_commands(const SpiderflowConf& config, int job, bool other_jobs_left);

struct TcOutcome {
    bool done = false;      // the interface now has what was asked
    std::string message;    // what was done, or why not (for the log)
};

// Job start / end on this node: read the interface, decide, run, under kTcLockPath (or
// `lock_path`). Never throw: the caller logs the message and the job runs on either way.
// With traffic_control off they do nothing (done = false, message says so).
TcOutcome start_job_traffic(const SpiderflowConf& config, int job, const std::string& level_text,
                            coflow::CommandRunner& runner, const std::string& lock_path = kTcLockPath);
TcOutcome end_job_traffic(const SpiderflowConf& config, int job, coflow::CommandRunner& runner,
                          const std::string& lock_path = kTcLockPath);

// A running job's new class (level, and share unless given) on `link`. The job must have a class
// there; with DSCP matching its filter keeps the DSCP the job's packets already carry.
// `dry_run`: read the state, return the commands, change nothing. Throws InputError when the
// job has no class there or the arguments are bad.
std::vector<coflow::TcCommand> change_job_class(const coflow::TcLink& link, coflow::TcMatch match, int job, int level,
                                                std::optional<double> share, coflow::CommandRunner& runner);

// The job's class in its NCCL environment. With nccl_group_classes: SPIDERFLOW_NCCL_TC_EP/PP/DP
// are set and NCCL_IB_TC/NCCL_IB_SL removed (returned, so the caller also unsets them where the
// job may carry its own); otherwise NCCL_IB_TC/NCCL_IB_SL for the job. Applies only when the
// site uses traffic classes (traffic_control or nccl_group_classes) or the job gave a level;
// returns the names to unset.
std::vector<std::string> apply_job_class_env(EnvList& env, const SpiderflowConf& config, const std::string& level_text);

}  // namespace spiderflow::slurmjob
