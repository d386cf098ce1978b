#include "services/launch/launch_writer.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <sstream>

#include "common/model/catalog.h"
#include "common/plan/layer_split.h"
#include "common/util/errors.h"
#include "common/util/parse_number.h"
#include "services/launch/command_flags.h"
#include "services/launch/launch_contract.h"
#include "services/launch/launch_diloco.h"
#include "services/launch/launch_env.h"

namespace spiderflow {
namespace {

std::string join(const std::vector<int>& values) {
    std::string out;
    for (int n : values) out += (out.empty() ? "" : ",") + std::to_string(n);
    return out;
}

bool runs_megatron(const std::vector<std::string>& command) {
    for (const auto& w : command) {
        if (w.size() >= 15 && w.compare(w.size() - 15, 15, "pretrain_gpt.py") == 0) return true;
    }
    return false;
}

// ---- Megatron-LM flags ----

// How one of the plan's flags meets the same flag in the user's own arguments.
enum class Rule {
    same,      // a fact of the plan: the command may repeat it, not change it
    at_least,  // a floor (positions >= sequence length): a larger value in the command wins
    fallback,  // a default (the timeout): the command's value wins
    on,        // a switch the plan's model needs; repeating it is fine
    off,       // contradicts the plan's model or split: never written, an error when given
};

struct Flag {
    std::string name;
    std::string value;   // empty for switches
    Rule rule = Rule::same;
    std::string why;     // the plan fact behind the flag, for error messages
    bool write = true;   // false: Megatron's default already says it; only checked
};

using Flags = std::vector<Flag>;

// Checks the command's own use of a plan flag (throws on a conflict); true when the plan's
// copy must still be written.
bool still_needed(const Flag& f, const std::vector<std::string>& command) {
    const size_t i = find_flag(command, f.name);
    if (i == std::string::npos) return f.rule != Rule::off && f.write;
    if (f.rule == Rule::off)
        throw InputError("launch", 0, f.name, "the command gives " + f.name + ", which contradicts the plan: " + f.why);
    if (f.rule == Rule::on || f.rule == Rule::fallback) return false;
    const std::string given = flag_value_at(command, i);
    const auto a = to_number(given), b = to_number(f.value);
    const bool ok = f.rule == Rule::at_least ? a && b && *a >= *b : given == f.value || (a && b && *a == *b);
    if (!ok)
        throw InputError("launch", 0, f.name,
                         "the command gives " + f.name + " " + given + " but the plan gives " + f.value +
                             (f.rule == Rule::at_least ? " or more" : "") + " (" + f.why + ")");
    return false;
}

Flags parallel_flags(const Plan& plan, double nccl_timeout_s) {
    const std::string model = plan.job.model.name.empty() ? "the model" : plan.job.model.name;
    Flags f = {
        {"--tensor-model-parallel-size", std::to_string(plan.tp), Rule::same, "the plan's tp"},
        {"--pipeline-model-parallel-size", std::to_string(plan.pp), Rule::same, "the plan's pp"},
        {"--num-layers", std::to_string(plan.job.model.layers), Rule::same, "layers of " + model},
        {"--micro-batch-size", std::to_string(plan.micro_batch), Rule::same, "the plan's micro-batch"},
        {"--global-batch-size", std::to_string(plan.job.global_batch), Rule::same, "the job's global batch"},
        {"--seq-length", std::to_string(plan.job.seq_len), Rule::same, "the job's sequence length"},
        {"--distributed-timeout-minutes", std::to_string(static_cast<long>(std::ceil(nccl_timeout_s / 60))),
         Rule::fallback, ""},
    };
    // The plan's memory counts optimizer states sharded across DP (ZeRO-1).
    if (plan.job.zero1) f.push_back({"--use-distributed-optimizer", "", Rule::on, ""});
    if (plan.virtual_stages > 1) {
        const std::string problem = virtual_stages_problem(plan, plan.virtual_stages);
        if (!problem.empty()) throw InputError("plan", 0, "degrees.virtual_stages", "Megatron-LM cannot run " + problem);
        const std::string why = "the plan interleaves " + std::to_string(plan.virtual_stages) + " chunks per GPU";
        f.push_back({"--num-virtual-stages-per-pipeline-rank", std::to_string(plan.virtual_stages), Rule::same, why});
        // Megatron takes one of the two spellings; the plan's is the count.
        f.push_back({"--num-layers-per-virtual-pipeline-stage", "", Rule::off, why});
    }
    return f;
}

// The memory choices the cost model priced, in Megatron-LM's spelling (its TransformerConfig
// fields recompute_granularity, recompute_method, recompute_num_layers, sequence_parallel and
// attention_backend, which ArgumentGroupFactory turns into these flags; names checked against
// tests/data/frameworks/megatron-lm-flags.txt). A plan that recomputes nothing refuses a command
// that recomputes: it would run slower than priced.
Flags memory_flags(const Plan& plan) {
    const JobSpec& job = plan.job;
    Flags f;
    const std::string how = std::string("the plan's ") + to_string(job.recompute) + " activation recomputation";
    if (job.recompute == Recompute::none) {
        f.push_back({"--recompute-granularity", "", Rule::off, "the plan keeps every activation (no recomputation)"});
        f.push_back({"--recompute-activations", "", Rule::off, "the plan keeps every activation (no recomputation)"});
    } else {
        f.push_back({"--recompute-granularity", to_string(job.recompute), Rule::same, how});
        // The old spelling of selective: another recomputation than a full plan's.
        if (job.recompute == Recompute::full) f.push_back({"--recompute-activations", "", Rule::off, how});
    }
    if (job.recompute == Recompute::full) {
        f.push_back({"--recompute-method", "uniform", Rule::same, how + ": every layer's input kept"});
        f.push_back({"--recompute-num-layers", "1", Rule::same, how + ": every layer's input kept"});
    } else {
        // Megatron refuses a method without full granularity.
        f.push_back({"--recompute-method", "", Rule::off, how});
        f.push_back({"--recompute-num-layers", "", Rule::off, how});
    }
    // Megatron turns sequence parallelism off by itself at tp 1.
    if (job.sequence_parallel && plan.tp > 1) {
        f.push_back({"--sequence-parallel", "", Rule::on, ""});
    } else if (plan.tp > 1) {
        f.push_back({"--sequence-parallel", "", Rule::off, "the plan is priced without sequence parallelism"});
    }
    if (job.flash_attention)
        f.push_back({"--attention-backend", "flash", Rule::same, "the plan keeps no attention scores (FlashAttention)"});
    return f;
}

std::string expressible_example(int layers, int pp) {
    const std::vector<int> even = megatron_even_split(layers, pp);
    if (even.empty()) return "no split of " + std::to_string(layers) + " layers fits " + std::to_string(pp) + " stages";
    // Long pipelines read better with the middle stages counted than listed.
    const std::string split = pp <= 8 ? join(even)
                                      : std::to_string(even.front()) + ", " + std::to_string(pp - 2) +
                                            " middle stages of " + std::to_string(even[1]) + ", " +
                                            std::to_string(even.back());
    return "an expressible split of " + std::to_string(layers) + " layers on " + std::to_string(pp) + " stages is " +
           split + " (first and last stage free, the middle ones equal); re-plan, or edit layers_per_stage";
}

Flags split_flags(const Plan& plan) {
    const std::vector<int>& l = plan.layers_per_stage;
    if (static_cast<int>(l.size()) != plan.pp)
        throw InputError("plan", 0, "layers_per_stage",
                         "has " + std::to_string(l.size()) + " entries for pp = " + std::to_string(plan.pp));
    const std::string problem = megatron_split_problem(l);
    if (!problem.empty())
        throw InputError("plan", 0, "layers_per_stage",
                         "Megatron-LM cannot run the layer split " + join(l) + ": " + problem + "; " +
                             expressible_example(plan.job.model.layers, plan.pp));
    Flags f;
    if (plan.pp == 1) return f;
    const std::string why = "its layer split is " + join(l);
    // An even split is Megatron's default: writing the flags would only break older releases.
    const bool even = std::adjacent_find(l.begin(), l.end(), std::not_equal_to<>()) == l.end();
    f.push_back({"--decoder-first-pipeline-num-layers", std::to_string(l.front()), Rule::same, why, !even});
    f.push_back({"--decoder-last-pipeline-num-layers", std::to_string(l.back()), Rule::same, why, !even});
    // Each makes Megatron split by its own rule (or reject the first/last flags).
    for (const char* own : {"--pipeline-model-parallel-layout", "--account-for-embedding-in-pipeline-split",
                            "--account-for-loss-in-pipeline-split"})
        f.push_back({own, "", Rule::off, why});
    return f;
}

// How the layers are built: from the plan's model, or, for a model read back from a plan file
// (whose schema carries only dimensions), from the builtin catalog entry of that name and
// dimensions. A model known to neither gets none of these flags: its command gives them.
std::optional<LayerDetails> details_of(const ModelArch& m) {
    if (m.details) return m.details;
    const ModelArch* c = Catalog::builtin().model(m.name);
    if (c == nullptr || c->layers != m.layers || c->hidden != m.hidden || c->heads != m.heads ||
        c->kv_heads != m.kv_heads || c->ffn_hidden != m.ffn_hidden || c->gated_ffn != m.gated_ffn)
        return std::nullopt;
    return c->details;
}

Flags layer_flags(const ModelArch& m) {
    const std::optional<LayerDetails> d = details_of(m);
    if (!d) return {};
    const std::string why = "the architecture of " + m.name;
    Flags f = {{"--normalization", to_string(d->normalization), Rule::same, why},
               {"--position-embedding-type", to_string(d->position_embedding), Rule::same, why}};
    if (d->position_embedding == PositionEmbedding::rope)
        f.push_back({"--rotary-base", std::to_string(d->rotary_base), Rule::same, why});
    if (!d->bias_linear) f.push_back({"--disable-bias-linear", "", Rule::on, why});
    // --swiglu comes with gated_ffn (shape_flags); GeLU is Megatron's default.
    if (d->activation == Activation::squared_relu) f.push_back({"--squared-relu", "", Rule::on, why});
    return f;
}

// Dimensions and the switches the cost model counted (attention groups, gated FFN, tied
// embeddings, experts): a command that contradicts them would train another model.
Flags shape_flags(const ModelArch& m) {
    const std::string of = " of " + m.name;
    Flags f = {{"--hidden-size", std::to_string(m.hidden), Rule::same, "hidden size" + of},
               {"--ffn-hidden-size", std::to_string(m.ffn_hidden), Rule::same, "FFN size" + of},
               {"--num-attention-heads", std::to_string(m.heads), Rule::same, "attention heads" + of}};
    if (m.kv_heads > 0 && m.kv_heads < m.heads) {
        f.push_back({"--group-query-attention", "", Rule::on, ""});
        f.push_back({"--num-query-groups", std::to_string(m.kv_heads), Rule::same, "KV heads" + of});
    } else {
        f.push_back({"--group-query-attention", "", Rule::off, m.name + " has a KV head per attention head"});
    }
    f.push_back({"--swiglu", "", m.gated_ffn ? Rule::on : Rule::off, m.name + " has a plain, not gated, FFN"});
    f.push_back({"--untie-embeddings-and-output-weights", "", m.tied_embeddings ? Rule::off : Rule::on,
                 m.name + " ties its input and output embeddings"});
    if (!m.is_moe()) {
        f.push_back({"--num-experts", "", Rule::off, m.name + " is a dense model"});
        return f;
    }
    f.push_back({"--num-experts", std::to_string(m.experts), Rule::same, "experts" + of});
    if (m.experts_per_token > 0)
        f.push_back({"--moe-router-topk", std::to_string(m.experts_per_token), Rule::same, "experts per token" + of});
    return f;
}

Flags architecture_flags(const Plan& plan, const std::vector<std::string>& command) {
    const ModelArch& m = plan.job.model;
    // A plan file always has the dimensions; a plan built in code may carry the layers alone.
    if (m.hidden < 1 || m.heads < 1) return {};
    Flags f = shape_flags(m);
    for (Flag& x : layer_flags(m)) f.push_back(std::move(x));
    f.push_back({"--max-position-embeddings", std::to_string(plan.job.seq_len), Rule::at_least,
                 "the job's sequence length"});
    // The tokenizer sets the vocabulary; only Megatron's NullTokenizer takes it from the command.
    const size_t tok = find_flag(command, "--tokenizer-type");
    if (tok != std::string::npos && flag_value_at(command, tok) == "NullTokenizer")
        f.push_back({"--vocab-size", std::to_string(m.vocab), Rule::same, "vocabulary of " + m.name});
    return f;
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

std::vector<std::string> megatron_args(const Plan& plan, double nccl_timeout_s,
                                       const std::vector<std::string>& command) {
    Flags flags = parallel_flags(plan, nccl_timeout_s);
    for (Flags more : {memory_flags(plan), split_flags(plan), architecture_flags(plan, command)})
        for (Flag& f : more) flags.push_back(std::move(f));
    std::vector<std::string> out;
    for (const Flag& f : flags) {
        if (!still_needed(f, command)) continue;
        out.push_back(f.name);
        if (!f.value.empty()) out.push_back(f.value);
    }
    return out;
}

std::vector<std::string> megatron_resume_args(const std::vector<std::string>& command, int attempt) {
    if (attempt < 2) return {};
    std::string save;
    for (size_t i = 0; i < command.size(); ++i) {
        const std::string& w = command[i];
        if (w == "--load" || w.rfind("--load=", 0) == 0) return {};
        if (w == "--save" && i + 1 < command.size()) save = command[i + 1];
        if (w.rfind("--save=", 0) == 0) save = w.substr(7);
    }
    if (save.empty()) return {};
    return {"--load", save};
}

namespace {

// One site's torchft replica group: a torchtitan instance with its own torchrun rendezvous on
// the site's nodes (its master is the node srun runs from), joined to the other sites by the
// lighthouse. Its ranks are its own, not the plan's global ones.
LaunchScript write_diloco_launch(const Plan& plan, const CommFacts& facts, const LaunchRequest& req) {
    std::set<int> sites;
    for (const auto& c : plan.cells) sites.insert(c.cluster);
    int cluster = req.part_cluster;
    if (cluster < 0) {
        if (sites.size() != 1)
            throw InputError("launch", 0, "plan",
                             "a DiLoCo plan over " + std::to_string(sites.size()) +
                                 " sites starts one torchft replica group per site: launch it inside each part of the "
                                 "cross-site job (or give each site its own plan)");
        cluster = *sites.begin();
    }
    if (req.megatron == 1 || (req.megatron < 0 && runs_megatron(req.command)))
        throw InputError("launch", 0, "--megatron", "Megatron-LM has no DiLoCo; a DiLoCo plan runs torchtitan with torchft");
    if (req.lighthouse.empty())
        throw InputError("launch", 0, "--lighthouse",
                         "a DiLoCo plan needs the URL of torchft's lighthouse (torchft_lighthouse), reachable from every "
                         "site, e.g. http://HOST:29510");
    const DilocoGroup g = diloco_group(plan, cluster);
    LaunchScript s;
    s.env = rank_env(facts, nullptr, 0, req.nccl);
    s.env.push_back({"TORCHFT_LIGHTHOUSE", req.lighthouse});
    s.env.push_back({env::kTp, std::to_string(plan.tp)});
    s.env.push_back({env::kPp, std::to_string(plan.pp)});
    s.env.push_back({env::kDp, std::to_string(g.dp)});
    s.env.push_back({env::kSync, to_string(plan.job.sync.mode)});
    s.env.push_back({env::kInnerSteps, std::to_string(plan.job.sync.inner_steps)});
    s.env.push_back({env::kOuterPrecision, to_string(plan.job.sync.outer_precision)});
    if (!req.plan_path.empty()) s.env.push_back({env::kPlanPath, req.plan_path});
    std::vector<std::string> program = req.command;
    for (auto& w : torchtitan_diloco_args(plan, g, req.command)) program.push_back(std::move(w));
    const std::string rdzv = std::to_string(comm_timeouts(facts, req.nccl).rdzv_s);
    // SLURM_NODEID and SLURM_LAUNCH_NODE_IPADDR exist only inside the task: a shell there
    // expands them, and the program follows as "$@", never re-parsed.
    const std::string inner = "exec torchrun --nnodes=" + std::to_string(g.nodes) +
                              " --nproc-per-node=" + std::to_string(g.gpus_per_node) +
                              " --node-rank=\"$SLURM_NODEID\" --master-addr=\"$SLURM_LAUNCH_NODE_IPADDR\"" +
                              " --master-port=\"" + req.master_port + "\" --rdzv-conf=timeout=" + rdzv + " \"$@\"";
    std::vector<std::string> step = {"srun", "--nodes=" + std::to_string(g.nodes), "--kill-on-bad-exit=1",
                                     "--ntasks=" + std::to_string(g.nodes), "--ntasks-per-node=1",
                                     "bash", "-c", inner, "spiderflow-launch"};
    step.insert(step.end(), program.begin(), program.end());
    s.steps.push_back(std::move(step));
    return s;
}

}  // namespace

LaunchScript write_launch(const Plan& plan, const CommFacts& facts, const LaunchRequest& req) {
    if (req.command.empty()) throw InputError("launch", 0, "command", "no program given after '--'");
    if (req.launcher != "srun" && req.launcher != "torchrun") {
        throw InputError("launch", 0, "--launcher", "expected srun or torchrun, got '" + req.launcher + "'");
    }
    if (plan.job.sync.diloco()) return write_diloco_launch(plan, facts, req);
    std::set<std::pair<int, int>> nodes;
    int part_ranks = 0;
    for (const auto& c : plan.cells) {
        if (req.part_cluster >= 0 && c.cluster != req.part_cluster) continue;
        nodes.insert({c.cluster, c.node});
        part_ranks += plan.tp;  // a cell is tp GPUs of one node
    }
    if (req.part_cluster >= 0) {
        if (part_ranks == 0) throw InputError("launch", 0, "SLURM_CLUSTER_NAME", "the plan has no ranks on this cluster");
        if (req.launcher != "srun") {
            throw InputError("launch", 0, "--launcher", "a part of a cross-site job starts one task per GPU (--launcher srun): "
                                                        "torchrun's node ranks do not span the parts");
        }
    }
    const int num_nodes = std::max<int>(1, static_cast<int>(nodes.size()));
    const int world = req.part_cluster >= 0 ? part_ranks : plan.world_size();
    const int per_node = (world + num_nodes - 1) / num_nodes;

    LaunchScript s;
    s.env = rank_env(facts, nullptr, 0, req.nccl);
    s.env.push_back({env::kTp, std::to_string(plan.tp)});
    s.env.push_back({env::kPp, std::to_string(plan.pp)});
    s.env.push_back({env::kDp, std::to_string(plan.dp)});
    s.env.push_back({env::kLayerSplit, join(plan.layers_per_stage)});
    if (!req.plan_path.empty()) s.env.push_back({env::kPlanPath, req.plan_path});

    const bool megatron = req.megatron == 1 || (req.megatron < 0 && runs_megatron(req.command));
    std::vector<std::string> program = req.command;
    if (megatron) {
        const double timeout = static_cast<double>(comm_timeouts(facts, req.nccl).nccl_s);
        for (auto& w : megatron_args(plan, timeout, req.command)) program.push_back(std::move(w));
        for (auto& w : megatron_resume_args(req.command, req.attempt)) program.push_back(std::move(w));
    }
    std::vector<std::string> step = {"srun", "--nodes=" + std::to_string(num_nodes), "--kill-on-bad-exit=1"};
    if (req.launcher == "srun") {
        step.push_back("--ntasks=" + std::to_string(world));
        step.push_back("--ntasks-per-node=" + std::to_string(per_node));
        step.insert(step.end(), program.begin(), program.end());
    } else {
        const std::string rdzv = std::to_string(comm_timeouts(facts, req.nccl).rdzv_s);
        step.push_back("--ntasks=" + std::to_string(num_nodes));
        step.push_back("--ntasks-per-node=1");
        // Static rendezvous with the node rank the SPANK plugin computed from the topology,
        // so torchrun's global ranks follow the same order as srun-launched ones. The static
        // backend reads its wait from rdzv-conf "timeout" (join_timeout is c10d's key).
        // The per-node values exist only inside the task (the SPANK plugin sets them), so a
        // shell in the task expands them; the program follows as "$@", never re-parsed.
        const std::string inner = "exec torchrun --nnodes=" + std::to_string(num_nodes) +
                                  " --nproc-per-node=" + std::to_string(per_node) +
                                  " --node-rank=\"$SPIDERFLOW_NODE_RANK\" --master-addr=\"" + req.master_addr +
                                  "\" --master-port=\"" + req.master_port + "\" --rdzv-conf=timeout=" + rdzv +
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
