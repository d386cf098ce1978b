// The user's options (sbatch --llm-model=... via the SPANK plugin, or SPIDERFLOW_* environment
// variables) as one table shared by the SPANK plugin (which declares them) and job_submit
// (which reads them from the job's spank env as _SLURM_SPANK_OPTION_spiderflow_<name>).
//
// A new option is one row of option_table() (its name, help, variable, reader and the name the
// request builder's messages use), the RequestOptions field it fills when the planner has none
// yet (common/planner/request_options.h), and a line in doc/slurm.md. job_submit hands
// the options to the planner as they are and keys its decisions by all of them.
#pragma once

#include <compare>
#include <optional>
#include <string>
#include <vector>

#include "common/planner/request_options.h"
#include "services/launch/launch_contract.h"

namespace spiderflow::slurmjob {

struct JobOptions;

struct OptionInfo {
    const char* name;       // SPANK option name, without "--"
    const char* arg_info;   // metavar shown in --help
    const char* usage;
    const char* env;        // SPIDERFLOW_* variable read when the option is absent
    // Checks the value and stores it; throws InputError(field = "--" + name).
    void (*set)(JobOptions& options, const std::string& name, const std::string& value);
    // The request builder's name for this option in sbatch_option_names(); null when its
    // messages never name it (--llm-gpus: they name Slurm's --gpus, which wins over it).
    std::string OptionNames::*names_member;
};

// The option table, in --help order.
const std::vector<OptionInfo>& option_table();

// sbatch's options: a request to the planner as any front end makes it, plus a plan to use as
// is instead of planning. sbatch fills the fields option_table() sets; the rest keep their
// defaults.
struct JobOptions : RequestOptions {
    std::string plan_file;             // a plan made by `spiderflow plan`, used as is: its path,
                                       // for messages only (slurmctld never opens it)
    std::string plan_content;          // that file's content as the user's sbatch read it
                                       // (plan_transport.h encoding); untrusted until validated
    // A cross-site job whose part fails for a reason not the user's: "end" or "requeue" (planned
    // again without what failed); empty: spiderflow.conf's on_failure.
    std::string on_failure;
    // A new plan after a failure: "keep" the tensor and pipeline degrees (the checkpoint loads as
    // saved) or "any" layout (frameworks that reshard on load); empty: keep.
    std::string replan;

    // True when the user asked for SpiderFlow at all; a job without any option is untouched.
    bool any() const;

    auto operator<=>(const JobOptions&) const = default;
};

// "name=value" strings. `spank_env` is the job's spank env (option values under the SPANK
// prefix), `environ` the job's environment (SPIDERFLOW_* fallbacks); either may be empty.
// Throws InputError(source "job options", field = option name) on a malformed value.
JobOptions read_job_options(const std::vector<std::string>& spank_env, const std::vector<std::string>& environ);

// The spank-env variable Slurm uses for an option: _SLURM_SPANK_OPTION_spiderflow_llm_model.
std::string spank_option_var(const std::string& option_name);

// Sets one option by its name (the SPANK callback and the readers above use it).
void set_job_option(JobOptions& opts, const std::string& name, const std::string& value);

// How sbatch spells the options, for the request builder's messages: the table's names.
const OptionNames& sbatch_option_names();

}  // namespace spiderflow::slurmjob
