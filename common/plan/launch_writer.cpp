#include "common/plan/launch_writer.h"

#include <cmath>
#include <set>
#include <sstream>

#include "common/util/errors.h"

namespace spiderflow {
namespace {

std::string layer_split(const Plan& plan) {
    std::string out;
    for (int n : plan.layers_per_stage) out += (out.empty() ? "" : ",") + std::to_string(n);
    return out;
}

bool runs_megatron(const std::vector<std::string>& command) {
    for (const auto& w : command) {
        if (w.size() >= 15 && w.compare(w.size() - 15, 15, "pretrain_gpt.py") == 0) return true;
    }
    return false;
}

std::string lookup(const EnvList& env, const std::string& name, const std::string& fallback) {
    for (const auto& [k, v] : env) {
        if (k == name) return v;
    }
    return fallback;
}

}  // namespace

std::string shell_quote(const std::string& word) {
    if (!word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@%") ==
                             std::string::npos) {
        return word;
    }
    std::string out = "'";
    for (char c : word) {
        if (c == '\'') out += "'\\''";
        else out += c;
    }
    return out + "'";
}

std::vector<std::string> megatron_args(const Plan& plan, double nccl_timeout_s) {
    std::vector<std::string> a = {
        "--tensor-model-parallel-size", std::to_string(plan.tp),
        "--pipeline-model-parallel-size", std::to_string(plan.pp),
        "--num-layers", std::to_string(plan.job.model.layers),
        "--micro-batch-size", std::to_string(plan.micro_batch),
        "--global-batch-size", std::to_string(plan.job.global_batch),
        "--seq-length", std::to_string(plan.job.seq_len),
        "--distributed-timeout-minutes", std::to_string(static_cast<long>(std::ceil(nccl_timeout_s / 60))),
    };
    const auto& l = plan.layers_per_stage;
    if (plan.pp > 2 && static_cast<int>(l.size()) == plan.pp) {
        bool middle_equal = true;
        for (size_t s = 2; s + 1 < l.size(); ++s) middle_equal = middle_equal && l[s] == l[1];
        const bool even = middle_equal && l.front() == l[1] && l.back() == l[1];
        if (middle_equal && !even) {
            a.insert(a.end(), {"--decoder-first-pipeline-num-layers", std::to_string(l.front()),
                               "--decoder-last-pipeline-num-layers", std::to_string(l.back())});
        }
    } else if (plan.pp == 2 && l.size() == 2 && l[0] != l[1]) {
        a.insert(a.end(), {"--decoder-first-pipeline-num-layers", std::to_string(l[0])});
    }
    return a;
}

LaunchScript write_launch(const Plan& plan, const CommFacts& facts, const LaunchRequest& req) {
    if (req.command.empty()) throw InputError("launch", 0, "command", "no program given after '--'");
    if (req.launcher != "srun" && req.launcher != "torchrun") {
        throw InputError("launch", 0, "--launcher", "expected srun or torchrun, got '" + req.launcher + "'");
    }
    std::set<std::pair<int, int>> nodes;
    for (const auto& c : plan.cells) nodes.insert({c.cluster, c.node});
    const int num_nodes = std::max<int>(1, static_cast<int>(nodes.size()));
    const int world = plan.world_size();
    const int per_node = (world + num_nodes - 1) / num_nodes;

    LaunchScript s;
    s.env = nccl_env(facts, nullptr, 0, req.nccl);
    s.env.push_back({"SPIDERFLOW_TP", std::to_string(plan.tp)});
    s.env.push_back({"SPIDERFLOW_PP", std::to_string(plan.pp)});
    s.env.push_back({"SPIDERFLOW_DP", std::to_string(plan.dp)});
    s.env.push_back({"SPIDERFLOW_LAYER_SPLIT", layer_split(plan)});
    if (!req.plan_path.empty()) s.env.push_back({"SPIDERFLOW_PLAN", req.plan_path});

    const bool megatron = req.megatron == 1 || (req.megatron < 0 && runs_megatron(req.command));
    std::vector<std::string> program = req.command;
    if (megatron) {
        const double timeout = std::stod(lookup(s.env, "SPIDERFLOW_NCCL_TIMEOUT_S", "600"));
        for (auto& w : megatron_args(plan, timeout)) program.push_back(std::move(w));
    }
    std::vector<std::string> step = {"srun", "--nodes=" + std::to_string(num_nodes), "--kill-on-bad-exit=1"};
    if (req.launcher == "srun") {
        step.push_back("--ntasks=" + std::to_string(world));
        step.push_back("--ntasks-per-node=" + std::to_string(per_node));
        step.insert(step.end(), program.begin(), program.end());
    } else {
        const std::string rdzv = lookup(s.env, "SPIDERFLOW_RDZV_TIMEOUT_S", "900");
        step.push_back("--ntasks=" + std::to_string(num_nodes));
        step.push_back("--ntasks-per-node=1");
        // Static rendezvous with the node rank the SPANK plugin computed from the topology,
        // so torchrun's global ranks follow the same order as srun-launched ones.
        // The per-node values exist only inside the task (the SPANK plugin sets them), so a
        // shell in the task expands them; the program follows as "$@", never re-parsed.
        const std::string inner = "exec torchrun --nnodes=" + std::to_string(num_nodes) +
                                  " --nproc-per-node=" + std::to_string(per_node) +
                                  " --node-rank=\"$SPIDERFLOW_NODE_RANK\" --master-addr=\"" + req.master_addr +
                                  "\" --master-port=\"" + req.master_port + "\" --rdzv-conf=join_timeout=" + rdzv +
                                  " \"$@\"";
        step.insert(step.end(), {"bash", "-c", inner, "spiderflow-launch"});
        step.insert(step.end(), program.begin(), program.end());
    }
    s.steps.push_back(std::move(step));
    return s;
}

std::string LaunchScript::text() const {
    std::ostringstream out;
    out << "#!/bin/bash\n# Written by spiderflow launch.\nset -euo pipefail\n";
    for (const auto& k : unset) out << "unset " << k << "\n";
    for (const auto& [k, v] : env) out << "export " << k << "=" << shell_quote(v) << "\n";
    for (const auto& step : steps) {
        for (size_t i = 0; i < step.size(); ++i) out << (i ? " " : "") << shell_quote(step[i]);
        out << "\n";
    }
    return out.str();
}

}  // namespace spiderflow
