// Writes the srun steps that start a planned job: one task per GPU running the user's command
// (Megatron-LM pretrain_gpt.py gets matching parallel flags), or one torchrun per node. The
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
};

struct LaunchScript {
    EnvList env;                                  // exported before the step
    std::vector<std::string> unset;               // removed before the step (must not reach it)
    std::vector<std::vector<std::string>> steps;  // argv of each srun command
    // A bash script: exports then the steps, words quoted for the shell.
    std::string text() const;
};

// Megatron-LM flags for the plan: --tensor-model-parallel-size, --pipeline-model-parallel-size,
// --num-layers, micro/global batch, --seq-length, and the uneven first/last stage split when the
// middle stages are equal (Megatron has no flag for other splits: SPIDERFLOW_LAYER_SPLIT carries it).
std::vector<std::string> megatron_args(const Plan& plan, double nccl_timeout_s);

// Throws InputError when the command is empty or the launcher unknown.
LaunchScript write_launch(const Plan& plan, const CommFacts& facts, const LaunchRequest& request);

std::string shell_quote(const std::string& word);

}  // namespace spiderflow
