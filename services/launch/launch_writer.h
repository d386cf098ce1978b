// Writes the srun steps that start a planned job: one task per GPU running the user's command
// (Megatron-LM pretrain_gpt.py gets the plan's parallel, layer-split and model flags), or one
// torchrun per node. The
// per-rank variables (RANK, LOCAL_RANK, NIC choice) come from the SPANK plugin at launch;
// what is written here is job-wide.
#pragma once

#include <string>
#include <vector>

#include "common/plan/nccl_env.h"
#include "common/plan/plan.h"

namespace spiderflow {

struct LaunchRequest {
    std::vector<std::string> command;   // the user's program and its arguments
    std::string launcher = "srun";      // "srun" (one task per GPU) or "torchrun" (one per node)
    int megatron = -1;                  // 1/0 force Megatron flags; -1 = when command runs pretrain_gpt.py
    std::string master_addr = "$MASTER_ADDR";  // torchrun rendezvous; the SPANK plugin sets these
    std::string master_port = "$MASTER_PORT";
    std::string plan_path;              // exported as SPIDERFLOW_PLAN for the steps
    NcclSettings nccl;
    // A part of a cross-site job: only this cluster's (index) share of the plan is started here;
    // its ranks follow the part's rank base (the SPANK plugin numbers them). -1 = the whole plan.
    int part_cluster = -1;
    // DiLoCo plans (doc/diloco.md): torchft's lighthouse URL, which every site's replica group
    // reaches (TORCHFT_LIGHTHOUSE).
    std::string lighthouse;
    // Which run of a cross-site job requeued after a failure this is (SPIDERFLOW_ATTEMPT): from
    // the second on, a Megatron-LM command that saves and loads nothing resumes from what it saved.
    int attempt = 1;
};

struct LaunchScript {
    EnvList env;                                  // exported before the step
    std::vector<std::string> unset;               // removed before the step (must not reach it)
    std::vector<std::vector<std::string>> steps;  // argv of each srun command
    // A bash script: exports then the steps, words quoted for the shell.
    std::string text() const;
};

// Megatron-LM flags for the plan, to append to the user's `command`: parallel sizes, batch,
// --seq-length, the layer split (--decoder-first/last-pipeline-num-layers when uneven) and the
// model's architecture from the plan's catalog model, so the user need not restate it. A flag
// the command already gives with the plan's value is not repeated. Throws InputError when the
// command gives a plan flag another value (naming both), or when the split is one Megatron-LM
// cannot express (megatron_split_problem, layer_split.h): a command Megatron would reject is never
// written.
std::vector<std::string> megatron_args(const Plan& plan, double nccl_timeout_s,
                                       const std::vector<std::string>& command = {});

// Run `attempt` of a Megatron-LM command: from the second run on, a command that saves
// (`--save DIR`) and gives no `--load` gets `--load DIR`, so it resumes from its checkpoint
// (doc/federation.md, "Surviving a failure"); empty otherwise.
std::vector<std::string> megatron_resume_args(const std::vector<std::string>& command, int attempt);

// Throws InputError when the command is empty or the launcher unknown. A DiLoCo plan starts one
// site's torchft replica group (the part's cluster, or the plan's only site): one torchrun per
// node with torchtitan's DiLoCo flags (launch_diloco.h); it needs request.lighthouse, and
// Megatron-LM (no DiLoCo) is refused.
LaunchScript write_launch(const Plan& plan, const CommFacts& facts, const LaunchRequest& request);

std::string shell_quote(const std::string& word);

}  // namespace spiderflow
