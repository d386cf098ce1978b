// The user's options (sbatch --llm-model=... via the SPANK plugin, or SPIDERFLOW_* environment
// variables) as one table shared by the SPANK plugin (which declares them) and job_submit
// (which reads them from the job's spank env as _SLURM_SPANK_OPTION_spiderflow_<name>).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "libspiderflow/plan/launch_contract.h"

namespace spiderflow::slurmjob {

struct OptionInfo {
    const char* name;       // SPANK option name, without "--"
    const char* arg_info;   // metavar shown in --help
    const char* usage;
    const char* env;        // SPIDERFLOW_* variable read when the option is absent
};

// The option table, in --help order.
const std::vector<OptionInfo>& option_table();

struct JobOptions {
    std::string model;                 // catalog name, e.g. llama3-70b
    std::optional<int> global_batch;
    std::optional<int> micro_batch;
    std::optional<int> seq_len;
    std::optional<int> gpus;           // --llm-gpus, when the job has no --gpus
    std::string objective;             // iteration_time | throughput_per_gpu
    std::string policy;                // planner name
    std::string sync;                  // sync | diloco (words checked here, meaning in the builder)
    std::optional<int> inner_steps;    // DiLoCo's H
    std::string outer_precision;       // fp32 | bf16 | int8
    std::optional<bool> streaming;
    std::string plan_file;             // a plan made by `spiderflow plan`, used as is: its path,
                                       // for messages only (slurmctld never opens it)
    std::string plan_content;          // that file's content as the user's sbatch read it
                                       // (plan_transport.h encoding); untrusted until validated

    // True when the user asked for SpiderFlow at all; a job without any option is untouched.
    bool any() const;
};

// "name=value" strings. `spank_env` is the job's spank env (option values under the SPANK
// prefix), `environ` the job's environment (SPIDERFLOW_* fallbacks); either may be empty.
// Throws InputError(source "job options", field = option name) on a malformed value.
JobOptions read_job_options(const std::vector<std::string>& spank_env, const std::vector<std::string>& environ);

// The spank-env variable Slurm uses for an option: _SLURM_SPANK_OPTION_spiderflow_llm_model.
std::string spank_option_var(const std::string& option_name);

// Sets one option by its name (the SPANK callback and the readers above use it).
void set_job_option(JobOptions& opts, const std::string& name, const std::string& value);

}  // namespace spiderflow::slurmjob
