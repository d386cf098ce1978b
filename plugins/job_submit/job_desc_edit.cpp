#include "plugins/job_submit/job_desc_edit.h"

#include <cstring>

#include "plugins/slurm_host.h"
#include "services/launch/launch_contract.h"

namespace spiderflow::plugin {

std::vector<std::string> env_vector(char** env, uint32_t size) {
    std::vector<std::string> out;
    if (env == nullptr) return out;
    for (uint32_t i = 0; i < size && env[i] != nullptr; ++i) out.emplace_back(env[i]);
    return out;
}

SlurmRequest slurm_request(const job_desc_msg_t* job) {
    SlurmRequest r;
    const auto per_job = gpu_in_tres(job->tres_per_job);
    const auto per_node = gpu_in_tres(job->tres_per_node);
    if (job->min_nodes != NO_VAL && job->min_nodes != 0) r.nodes = static_cast<int>(job->min_nodes);
    // sbatch fills num_tasks itself from other options (--ntasks-per-node=1 gives 1): only an
    // explicit -n is the user's choice.
    if ((job->bitflags & JOB_NTASKS_SET) && job->num_tasks != NO_VAL && job->num_tasks != 0) {
        r.ntasks = static_cast<int>(job->num_tasks);
    }
    if (job->ntasks_per_node != NO_VAL16 && job->ntasks_per_node != 0) r.ntasks_per_node = job->ntasks_per_node;
    // ... and with --ntasks-per-node it also sets -n to that times the node count.
    if (r.ntasks && r.ntasks_per_node && *r.ntasks == *r.ntasks_per_node * r.nodes.value_or(1)) r.ntasks.reset();
    if (per_job) {
        r.gpus = per_job->count;
        r.gpu_type = per_job->type;
        r.gpu_count_missing = !per_job->count_given && !per_job->type.empty();
        r.gpus_text = "--gpus=" + (per_job->type.empty() ? "" : per_job->type + (per_job->count_given ? ":" : "")) +
                      (per_job->count_given || per_job->type.empty() ? std::to_string(per_job->count) : "");
    } else if (per_node) {
        r.gpus_per_node = per_node->count;
        r.gpus = per_node->count * r.nodes.value_or(1);
        r.gpu_type = per_node->type;
        r.gpu_count_missing = !per_node->count_given && !per_node->type.empty();
        r.gpus_text = "--gpus-per-node=" + std::to_string(per_node->count) +
                      (r.nodes ? " x -N " + std::to_string(*r.nodes) : "");
    }
    return r;
}

namespace {

void replace_string(char** field, const std::string& value) {
    if (*field != nullptr) slurm_xfree_ptr(*field);
    *field = value.empty() ? nullptr : slurm_xstrdup(value.c_str());
}

// Keeps Slurm's own TRES prefix style ("gres:gpu" in 22.05) when the job shows one, and the
// user's GPU type.
std::string gpu_tres(const job_desc_msg_t* job, int count, const std::string& type) {
    const char* seen = job->tres_per_job != nullptr ? job->tres_per_job : job->tres_per_node;
    const std::string prefix = seen != nullptr && std::strncmp(seen, "gres/", 5) == 0 ? "gres/gpu:" : "gres:gpu:";
    return prefix + (type.empty() ? "" : type + ":") + std::to_string(count);
}

uint32_t count(char** env) {
    uint32_t n = 0;
    while (env != nullptr && env[n] != nullptr) ++n;
    return n;
}

}  // namespace

void apply_rewrite(job_desc_msg_t* job, const SubmitRewrite& r, bool constrain_gpu_type) {
    const std::string per_node = gpu_tres(job, r.gpus_per_node, r.slurm_gpu_type);
    replace_string(&job->tres_per_job, "");
    replace_string(&job->tres_per_node, per_node);
    job->min_nodes = static_cast<uint32_t>(r.nodes);
    job->max_nodes = static_cast<uint32_t>(r.nodes);
    job->num_tasks = static_cast<uint32_t>(r.num_tasks);
    job->ntasks_per_node = static_cast<uint16_t>(r.tasks_per_node);
    if (constrain_gpu_type && !r.gpu_type.empty()) {
        std::string features = job->features != nullptr && *job->features ? "(" + std::string(job->features) + ")&" : "";
        replace_string(&job->features, features + r.gpu_type);
    }
    // Prolog/epilog see the spank env (as SPANK_<name>); a batch script and the steps it
    // starts see the job's environment, where the values go as SLURM_SPANK_<name>, the name
    // Slurm itself gives spank-env values in a batch step.
    for (const auto& [k, v] : r.job_env) slurm_env_array_overwrite(&job->spank_job_env, k.c_str(), v.c_str());
    job->spank_job_env_size = count(job->spank_job_env);
    // salloc and srun jobs carry no environment here; what is set in it comes back to them in
    // the allocation response (slurmctld keeps it as the job's supplementary environment),
    // so their steps see the plan as a batch job's do.
    for (const auto& name : r.slurm_env_unset) {
        if (job->environment != nullptr) slurm_unsetenvp(job->environment, name.c_str());
    }
    for (const auto& [k, v] : r.slurm_env) slurm_env_array_overwrite(&job->environment, k.c_str(), v.c_str());
    // The batch script sees the plan under its own names too (SPIDERFLOW_TP, ...), as every task
    // and every other cluster's part of a cross-site job does: a script that starts its framework
    // itself ("--tensor-model-parallel-size $SPIDERFLOW_TP") would otherwise read nothing on the
    // home cluster's first run.
    for (const auto& [k, v] : r.job_env) {
        slurm_env_array_overwrite(&job->environment, (env::kSlurmSpankPrefix + k).c_str(), v.c_str());
        slurm_env_array_overwrite(&job->environment, k.c_str(), v.c_str());
    }
    job->env_size = count(job->environment);
    replace_string(&job->admin_comment, r.summary);
    // A home part waits for the broker: held here (a user hold, which the agent turns into an
    // admin hold when it takes the job over) and released by the agent into its reservation.
    // Slurm never requeues it (whatever JobRequeue says): on a lost node it ends NODE_FAIL and
    // the broker requeues the whole cross-site job, as it does for the parts it submits.
    if (r.hold) {
        job->priority = 0;
        job->requeue = 0;
    }
}

}  // namespace spiderflow::plugin
