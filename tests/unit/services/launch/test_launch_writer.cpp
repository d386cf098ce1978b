// The launch writer: Megatron-LM's flags as the plan prices them, srun and torchrun steps, a
// cross-site part's share, and the flag names checked against each framework's own.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "common/model/catalog.h"
#include "common/util/errors.h"
#include "services/launch/launch_writer.h"

namespace spiderflow {
namespace {

std::map<std::string, std::string> as_map(const EnvList& env) { return {env.begin(), env.end()}; }

TEST(LaunchWriter, MegatronFlagsMatchThePlan) {
    Plan p;
    p.job.model.layers = 32;
    p.job.global_batch = 512;
    p.job.seq_len = 4096;
    p.tp = 4;
    p.pp = 4;
    p.dp = 2;
    p.micro_batch = 2;
    p.layers_per_stage = {7, 9, 9, 7};
    for (int i = 0; i < 8; ++i) p.cells.push_back({0, i / 2, (i % 2) * 4});
    LaunchRequest req;
    req.command = {"python", "/opt/Megatron-LM/pretrain_gpt.py", "--bf16"};
    const LaunchScript s = write_launch(p, {}, req);
    ASSERT_EQ(s.steps.size(), 1u);
    const auto& step = s.steps[0];
    auto value_of = [&](const std::string& flag) {
        for (size_t i = 0; i + 1 < step.size(); ++i) {
            if (step[i] == flag) return step[i + 1];
        }
        return std::string("<absent>");
    };
    EXPECT_EQ(step[0], "srun");
    EXPECT_EQ(value_of("--tensor-model-parallel-size"), "4");
    EXPECT_EQ(value_of("--pipeline-model-parallel-size"), "4");
    EXPECT_EQ(value_of("--micro-batch-size"), "2");
    EXPECT_EQ(value_of("--global-batch-size"), "512");
    EXPECT_EQ(value_of("--decoder-first-pipeline-num-layers"), "7");
    EXPECT_EQ(value_of("--decoder-last-pipeline-num-layers"), "7");
    EXPECT_NE(std::find(step.begin(), step.end(), "--ntasks=32"), step.end());
    EXPECT_NE(std::find(step.begin(), step.end(), "--nodes=4"), step.end());
    const auto env = as_map(s.env);
    EXPECT_EQ(env.at("SPIDERFLOW_LAYER_SPLIT"), "7,9,9,7");
    EXPECT_NE(s.text().find("export CUDA_DEVICE_MAX_CONNECTIONS=1"), std::string::npos);
}

TEST(LaunchWriter, TorchrunOnePerNodeAndQuoting) {
    Plan p;
    p.job.model.layers = 8;
    p.job.global_batch = 8;
    p.tp = 8;
    p.pp = 1;
    p.dp = 2;
    p.layers_per_stage = {8};
    p.cells = {{0, 0, 0}, {0, 1, 0}};
    LaunchRequest req;
    req.launcher = "torchrun";
    req.command = {"train.py", "--name", "it's mine"};
    const LaunchScript s = write_launch(p, {}, req);
    const std::string text = s.text();
    EXPECT_NE(text.find("--ntasks-per-node=1"), std::string::npos);
    EXPECT_NE(text.find("--nproc-per-node=8"), std::string::npos);
    EXPECT_NE(text.find("'it'\\''s mine'"), std::string::npos) << text;
    EXPECT_EQ(text.find("--tensor-model-parallel-size"), std::string::npos) << "not a Megatron command";
    req.launcher = "mpirun";
    EXPECT_THROW(write_launch(p, {}, req), InputError);
    req.launcher = "srun";
    req.command.clear();
    EXPECT_THROW(write_launch(p, {}, req), InputError);
}

// ---- Megatron-LM launch flags (issue 10) ----

// A plan of a catalog model with the given split; cells one per node, enough for the writer.
Plan megatron_plan(const std::string& model, std::vector<int> split) {
    Plan p;
    p.job.model = *Catalog::builtin().model(model);
    p.job.seq_len = 4096;
    p.job.global_batch = 1024;
    p.tp = 8;
    p.pp = static_cast<int>(split.size());
    p.dp = 1;
    p.micro_batch = 1;
    p.num_micro_batches = 1024;
    p.layers_per_stage = std::move(split);
    for (int s = 0; s < p.pp; ++s) p.cells.push_back({0, s, 0});
    return p;
}

std::vector<std::string> pretrain(std::vector<std::string> extra = {}) {
    std::vector<std::string> cmd = {"python", "pretrain_gpt.py"};
    cmd.insert(cmd.end(), extra.begin(), extra.end());
    return cmd;
}

// The value after `flag` in `args`, "<absent>" when missing, "<switch>" when a bare switch.
std::string flag_value(const std::vector<std::string>& args, const std::string& flag) {
    for (size_t i = 0; i < args.size(); ++i)
        if (args[i] == flag) return i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0 ? args[i + 1] : "<switch>";
    return "<absent>";
}

size_t count_of(const std::vector<std::string>& args, const std::string& word) {
    return static_cast<size_t>(std::count(args.begin(), args.end(), word));
}

std::string input_error(const Plan& p, const std::vector<std::string>& cmd) {
    try {
        megatron_args(p, 600, cmd);
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

// A requeued cross-site job's second run resumes from what the first saved: --load joins --save;
// a command that loads already, or saves nothing, or a first run, is left as written.
TEST(MegatronArgs, ALaterRunLoadsWhatTheCommandSaves) {
    const std::vector<std::string> saves = {"python", "pretrain_gpt.py", "--save", "/ckpt/run17", "--save-interval", "500"};
    EXPECT_TRUE(megatron_resume_args(saves, 1).empty());
    EXPECT_EQ(megatron_resume_args(saves, 2), (std::vector<std::string>{"--load", "/ckpt/run17"}));
    EXPECT_EQ(megatron_resume_args({"pretrain_gpt.py", "--save=/ckpt/x"}, 3), (std::vector<std::string>{"--load", "/ckpt/x"}));
    EXPECT_TRUE(megatron_resume_args({"pretrain_gpt.py", "--save", "/a", "--load", "/b"}, 2).empty());
    EXPECT_TRUE(megatron_resume_args({"pretrain_gpt.py"}, 2).empty());
    LaunchRequest req;
    req.command = saves;
    req.attempt = 2;
    const LaunchScript s = write_launch(megatron_plan("llama3-8b", std::vector<int>(4, 8)), CommFacts{}, req);
    const auto& step = s.steps.front();
    const auto load = std::find(step.begin(), step.end(), "--load");
    ASSERT_NE(load, step.end());
    EXPECT_EQ(*(load + 1), "/ckpt/run17");
}

TEST(MegatronArgs, UnevenSplitUsesFirstAndLastFlags) {
    const auto a = megatron_args(megatron_plan("llama3-8b", {4, 5, 5, 5, 5, 5, 3}), 600, pretrain());
    EXPECT_EQ(flag_value(a, "--pipeline-model-parallel-size"), "7");
    EXPECT_EQ(flag_value(a, "--decoder-first-pipeline-num-layers"), "4");
    EXPECT_EQ(flag_value(a, "--decoder-last-pipeline-num-layers"), "3");
    // An even split is Megatron's default and needs neither.
    const auto even = megatron_args(megatron_plan("llama3-70b", std::vector<int>(16, 5)), 600, pretrain());
    EXPECT_EQ(flag_value(even, "--decoder-first-pipeline-num-layers"), "<absent>");
    EXPECT_EQ(flag_value(even, "--decoder-last-pipeline-num-layers"), "<absent>");
}

TEST(MegatronArgs, RefusesASplitMegatronCannotRun) {
    // What the planner used to write for 32 layers on 7 stages: Megatron rejects it.
    const Plan p = megatron_plan("llama3-8b", {5, 5, 5, 5, 4, 4, 4});
    const std::string why = input_error(p, pretrain());
    EXPECT_NE(why.find("5,5,5,5,4,4,4"), std::string::npos) << why;
    EXPECT_NE(why.find("4,5,5,5,5,5,3"), std::string::npos) << why;  // what would be expressible
    EXPECT_NE(why.find("layers_per_stage"), std::string::npos) << why;
    LaunchRequest req;
    req.command = pretrain();
    EXPECT_THROW(write_launch(p, {}, req), InputError);
    req.megatron = 0;  // not a Megatron program: the split travels in SPIDERFLOW_LAYER_SPLIT only
    EXPECT_NO_THROW(write_launch(p, {}, req));
}

TEST(MegatronArgs, AnInterleavedPlanNamesItsChunksAndRefusesTheOtherSpelling) {
    Plan p = megatron_plan("llama3-70b", std::vector<int>(16, 5));
    p.virtual_stages = 5;
    const auto a = megatron_args(p, 600, pretrain());
    EXPECT_EQ(flag_value(a, "--num-virtual-stages-per-pipeline-rank"), "5");
    const std::string twice = input_error(p, pretrain({"--num-layers-per-virtual-pipeline-stage", "1"}));
    EXPECT_NE(twice.find("contradicts the plan"), std::string::npos) << twice;
    const std::string other = input_error(p, pretrain({"--num-virtual-stages-per-pipeline-rank", "2"}));
    EXPECT_NE(other.find("the plan gives 5"), std::string::npos) << other;
    // A chunk count Megatron cannot run (5 layers a stage do not split in 2) is refused.
    p.virtual_stages = 2;
    const std::string cannot = input_error(p, pretrain());
    EXPECT_NE(cannot.find("do not divide a stage's 5 layers"), std::string::npos) << cannot;
    // Plain 1F1B writes neither.
    EXPECT_EQ(flag_value(megatron_args(megatron_plan("llama3-70b", std::vector<int>(16, 5)), 600, pretrain()),
                         "--num-virtual-stages-per-pipeline-rank"),
              "<absent>");
}

TEST(MegatronArgs, ArchitectureComesFromTheCatalogModel) {
    const auto a = megatron_args(megatron_plan("llama3-70b", std::vector<int>(16, 5)), 600, pretrain());
    EXPECT_EQ(flag_value(a, "--num-layers"), "80");
    EXPECT_EQ(flag_value(a, "--hidden-size"), "8192");
    EXPECT_EQ(flag_value(a, "--ffn-hidden-size"), "28672");
    EXPECT_EQ(flag_value(a, "--num-attention-heads"), "64");
    EXPECT_EQ(flag_value(a, "--group-query-attention"), "<switch>");
    EXPECT_EQ(flag_value(a, "--num-query-groups"), "8");
    EXPECT_EQ(flag_value(a, "--swiglu"), "<switch>");
    EXPECT_EQ(flag_value(a, "--untie-embeddings-and-output-weights"), "<switch>");
    EXPECT_EQ(flag_value(a, "--disable-bias-linear"), "<switch>");
    EXPECT_EQ(flag_value(a, "--normalization"), "RMSNorm");
    EXPECT_EQ(flag_value(a, "--position-embedding-type"), "rope");
    EXPECT_EQ(flag_value(a, "--rotary-base"), "500000");
    EXPECT_EQ(flag_value(a, "--max-position-embeddings"), "4096");
    EXPECT_EQ(flag_value(a, "--seq-length"), "4096");
    EXPECT_EQ(flag_value(a, "--num-experts"), "<absent>");
    // The tokenizer sets the vocabulary unless it is Megatron's NullTokenizer.
    EXPECT_EQ(flag_value(a, "--vocab-size"), "<absent>");
    const auto null_tok = megatron_args(megatron_plan("llama3-70b", std::vector<int>(16, 5)), 600,
                                        pretrain({"--tokenizer-type", "NullTokenizer"}));
    EXPECT_EQ(flag_value(null_tok, "--vocab-size"), "128256");

    // GPT-3: LayerNorm, learned positions, plain FFN, tied embeddings, one KV head per head.
    const auto g = megatron_args(megatron_plan("gpt3-1.3b", {12, 12}), 600, pretrain());
    EXPECT_EQ(flag_value(g, "--normalization"), "LayerNorm");
    EXPECT_EQ(flag_value(g, "--position-embedding-type"), "learned_absolute");
    for (const char* absent : {"--swiglu", "--untie-embeddings-and-output-weights", "--group-query-attention",
                               "--num-query-groups", "--rotary-base", "--disable-bias-linear"})
        EXPECT_EQ(flag_value(g, absent), "<absent>") << absent;

    // Mixtral: experts from the catalog.
    const auto m = megatron_args(megatron_plan("mixtral-8x7b", std::vector<int>(4, 8)), 600, pretrain());
    EXPECT_EQ(flag_value(m, "--num-experts"), "8");
    EXPECT_EQ(flag_value(m, "--moe-router-topk"), "2");
    EXPECT_EQ(flag_value(m, "--rotary-base"), "1000000");
}

TEST(MegatronArgs, LayerFlagsComeFromTheModelsDetails) {
    // A plan read back from its file has the dimensions only: the catalog entry of that name gives
    // the rest, as long as the dimensions are its own.
    Plan p = megatron_plan("llama3-70b", std::vector<int>(16, 5));
    p.job.model.details.reset();
    auto a = megatron_args(p, 600, pretrain());
    EXPECT_EQ(flag_value(a, "--normalization"), "RMSNorm");
    EXPECT_EQ(flag_value(a, "--rotary-base"), "500000");
    EXPECT_EQ(flag_value(a, "--disable-bias-linear"), "<switch>");
    p.job.model.hidden = 4096;
    p.job.model.ffn_hidden = 14336;
    a = megatron_args(p, 600, pretrain());
    for (const char* absent : {"--normalization", "--position-embedding-type", "--rotary-base", "--disable-bias-linear"})
        EXPECT_EQ(flag_value(a, absent), "<absent>") << absent;
    EXPECT_EQ(flag_value(a, "--hidden-size"), "4096");

    // A model of the user's own: what its details say (Nemotron-4's squared ReLU here).
    p = megatron_plan("nemotron4-340b", std::vector<int>(8, 12));
    a = megatron_args(p, 600, pretrain());
    EXPECT_EQ(flag_value(a, "--squared-relu"), "<switch>");
    EXPECT_EQ(flag_value(a, "--normalization"), "LayerNorm");
    EXPECT_EQ(flag_value(a, "--rotary-base"), "10000");
    EXPECT_EQ(flag_value(a, "--swiglu"), "<absent>");
    p.job.model.name = "custom";
    p.job.model.details->normalization = Normalization::rms_norm;
    p.job.model.details->position_embedding = PositionEmbedding::learned_absolute;
    a = megatron_args(p, 600, pretrain());
    EXPECT_EQ(flag_value(a, "--normalization"), "RMSNorm");
    EXPECT_EQ(flag_value(a, "--position-embedding-type"), "learned_absolute");
    EXPECT_EQ(flag_value(a, "--rotary-base"), "<absent>");
    EXPECT_EQ(flag_value(a, "--squared-relu"), "<switch>");
    p.job.model.details.reset();  // and no catalog entry of that name: the command gives them
    a = megatron_args(p, 600, pretrain({"--normalization", "RMSNorm"}));
    EXPECT_EQ(count_of(a, "--normalization"), 0u);
    EXPECT_EQ(flag_value(a, "--squared-relu"), "<absent>");
}

TEST(MegatronArgs, UserFlagsAgreeingArePassedOnceConflictingAreErrors) {
    const Plan p = megatron_plan("llama3-70b", std::vector<int>(16, 5));
    LaunchRequest req;
    req.command = pretrain({"--hidden-size", "8192", "--swiglu", "--num-layers=80", "--bf16",
                            "--max-position-embeddings", "8192", "--distributed-timeout-minutes", "30"});
    const LaunchScript s = write_launch(p, {}, req);
    const auto& step = s.steps.at(0);
    EXPECT_EQ(count_of(step, "--hidden-size"), 1u);
    EXPECT_EQ(count_of(step, "--swiglu"), 1u);
    EXPECT_EQ(count_of(step, "--num-layers"), 0u);  // given as --num-layers=80
    EXPECT_EQ(count_of(step, "--max-position-embeddings"), 1u);  // the user's 8192 >= 4096 stands
    EXPECT_EQ(flag_value(step, "--max-position-embeddings"), "8192");
    EXPECT_EQ(count_of(step, "--distributed-timeout-minutes"), 1u);  // the user's own timeout
    EXPECT_EQ(flag_value(step, "--distributed-timeout-minutes"), "30");
    EXPECT_EQ(count_of(step, "--tensor-model-parallel-size"), 1u);

    std::string why = input_error(p, pretrain({"--hidden-size", "4096"}));
    EXPECT_NE(why.find("--hidden-size 4096"), std::string::npos) << why;
    EXPECT_NE(why.find("8192"), std::string::npos) << why;
    why = input_error(p, pretrain({"--tensor-model-parallel-size=4"}));
    EXPECT_NE(why.find("4"), std::string::npos) << why;
    EXPECT_NE(why.find("plan gives 8"), std::string::npos) << why;
    why = input_error(p, pretrain({"--max-position-embeddings", "2048"}));
    EXPECT_NE(why.find("4096 or more"), std::string::npos) << why;
    why = input_error(p, pretrain({"--decoder-first-pipeline-num-layers", "4"}));  // plan: even, 5
    EXPECT_NE(why.find("plan gives 5"), std::string::npos) << why;
    EXPECT_NE(input_error(p, pretrain({"--pipeline-model-parallel-layout", "E|t*80|L"})), "");
    EXPECT_NE(input_error(p, pretrain({"--normalization", "LayerNorm"})), "");
    // A switch the model rules out: GPT-3 has a plain FFN and tied embeddings.
    const Plan g = megatron_plan("gpt3-1.3b", {12, 12});
    why = input_error(g, pretrain({"--swiglu"}));
    EXPECT_NE(why.find("--swiglu"), std::string::npos) << why;
    EXPECT_NE(why.find("gpt3-1.3b"), std::string::npos) << why;
    EXPECT_NE(input_error(g, pretrain({"--untie-embeddings-and-output-weights"})), "");
    EXPECT_EQ(input_error(g, pretrain({"--decoder-first-pipeline-num-layers", "12"})), "");  // agrees
}

TEST(LaunchWriter, TorchrunStaticRendezvousTimeout) {
    Plan p = megatron_plan("llama3-8b", {16, 16});
    LaunchRequest req;
    req.launcher = "torchrun";
    req.command = {"train.py"};
    const std::string text = write_launch(p, {}, req).text();
    // torchrun's static rendezvous reads "timeout"; "join_timeout" is the c10d backend's key.
    EXPECT_NE(text.find("--rdzv-conf=timeout=900"), std::string::npos) << text;
    EXPECT_EQ(text.find("join_timeout"), std::string::npos) << text;
}

// In a part of a cross-site job `spiderflow launch` starts only this cluster's share.
TEST(LaunchWriter, ACrossSitePartStartsItsClustersShareOnly) {
    Plan p = megatron_plan("llama3-8b", {16, 16});
    p.cells = {{0, 0, 0}, {1, 0, 0}};  // stage 0 on cluster 0, stage 1 on cluster 1: 8 GPUs each
    LaunchRequest req;
    req.command = {"train.py"};
    EXPECT_EQ(flag_value(write_launch(p, {}, req).steps.at(0), "--ntasks=16"), "<switch>");
    req.part_cluster = 1;
    const auto step = write_launch(p, {}, req).steps.at(0);
    EXPECT_EQ(count_of(step, "--ntasks=8"), 1u);
    EXPECT_EQ(count_of(step, "--nodes=1"), 1u);
    req.launcher = "torchrun";  // node ranks do not span the parts: refused, saying so
    EXPECT_THROW(write_launch(p, {}, req), InputError);
    req.launcher = "srun";
    req.part_cluster = 2;  // no rank of the plan there
    EXPECT_THROW(write_launch(p, {}, req), InputError);
}

// ---- The plan's memory choices on the launch line (issue 38) ----

// Every recomputation in Megatron-LM's spelling: selective as its granularity alone; full with the
// method and unit the cost model prices (every layer's input kept); none writes nothing and
// refuses a command that recomputes, as that would run slower than priced.
TEST(MegatronArgs, RecomputationIsWrittenAsPriced) {
    Plan p = megatron_plan("llama3-70b", std::vector<int>(16, 5));
    p.job.recompute = Recompute::selective;
    auto a = megatron_args(p, 600, pretrain());
    EXPECT_EQ(flag_value(a, "--recompute-granularity"), "selective");
    EXPECT_EQ(flag_value(a, "--recompute-method"), "<absent>");
    EXPECT_NE(input_error(p, pretrain({"--recompute-method", "block"})).find("contradicts the plan"), std::string::npos);
    p.job.recompute = Recompute::full;
    a = megatron_args(p, 600, pretrain());
    EXPECT_EQ(flag_value(a, "--recompute-granularity"), "full");
    EXPECT_EQ(flag_value(a, "--recompute-method"), "uniform");
    EXPECT_EQ(flag_value(a, "--recompute-num-layers"), "1");
    EXPECT_NE(input_error(p, pretrain({"--recompute-granularity", "selective"})).find("the plan gives full"),
              std::string::npos);
    p.job.recompute = Recompute::none;
    a = megatron_args(p, 600, pretrain());
    EXPECT_EQ(flag_value(a, "--recompute-granularity"), "<absent>");
    EXPECT_NE(input_error(p, pretrain({"--recompute-activations"})).find("keeps every activation"), std::string::npos);
}

// Sequence parallelism goes with tensor parallelism; a plan priced without it refuses it;
// FlashAttention is named by Megatron's attention backend.
TEST(MegatronArgs, SequenceParallelismAndFlashAttentionAreWrittenAsPriced) {
    Plan p = megatron_plan("llama3-70b", std::vector<int>(16, 5));
    p.job.sequence_parallel = true;
    p.job.flash_attention = true;
    auto a = megatron_args(p, 600, pretrain({"--sequence-parallel"}));
    EXPECT_EQ(count_of(a, "--sequence-parallel"), 0u);   // the command gives it already
    a = megatron_args(p, 600, pretrain());
    EXPECT_EQ(flag_value(a, "--sequence-parallel"), "<switch>");
    EXPECT_EQ(flag_value(a, "--attention-backend"), "flash");
    p.job.sequence_parallel = false;
    EXPECT_EQ(flag_value(megatron_args(p, 600, pretrain()), "--sequence-parallel"), "<absent>");
    EXPECT_NE(input_error(p, pretrain({"--sequence-parallel"})).find("without sequence parallelism"), std::string::npos);
    p.job.sequence_parallel = true;
    p.tp = 1;   // Megatron turns it off by itself at tp 1: nothing to write
    EXPECT_EQ(flag_value(megatron_args(p, 600, pretrain()), "--sequence-parallel"), "<absent>");
}

// Flag names are Megatron-LM's and torchtitan's own: every flag the writers know (write, check or
// refuse) is in the list checked against each framework's argument parser at a pinned commit
// (tests/data/frameworks/*.txt says where each is declared).
std::set<std::string> framework_flags(const std::string& file) {
    const char* dir = std::getenv("SF_SRCDIR");
    std::ifstream in(std::string(dir && *dir ? dir : ".") + "/tests/data/frameworks/" + file);
    std::set<std::string> flags;
    for (std::string line; std::getline(in, line);)
        if (!line.empty() && line[0] != '#') flags.insert(line.substr(0, line.find('\t')));
    return flags;
}

std::set<std::string> flags_in_source(const std::string& file) {
    const char* dir = std::getenv("SF_SRCDIR");
    std::ifstream in(std::string(dir && *dir ? dir : ".") + "/" + file);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::set<std::string> flags;
    const std::regex literal("\"(--[a-z][a-z0-9_.-]*)\"");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), literal); it != std::sregex_iterator(); ++it)
        flags.insert((*it)[1]);
    return flags;
}

TEST(FrameworkFlags, EveryFlagTheWritersKnowIsTheFrameworksOwn) {
    const std::set<std::string> megatron = framework_flags("megatron-lm-flags.txt");
    const std::set<std::string> torchtitan = framework_flags("torchtitan-flags.txt");
    ASSERT_GT(megatron.size(), 30u);
    ASSERT_GT(torchtitan.size(), 10u);
    // spiderflow launch's own options, named in its messages.
    const std::set<std::string> ours = {"--launcher", "--lighthouse", "--megatron"};
    const std::set<std::string> megatron_source = flags_in_source("services/launch/launch_writer.cpp");
    ASSERT_GT(megatron_source.size(), 30u);
    for (const std::string& f : megatron_source)
        if (!ours.count(f)) EXPECT_TRUE(megatron.count(f)) << f << " is not in megatron-lm-flags.txt";
    for (const std::string& f : flags_in_source("services/launch/launch_diloco.cpp"))
        if (!ours.count(f)) EXPECT_TRUE(torchtitan.count(f)) << f << " is not in torchtitan-flags.txt";
    // And what a plan with every choice actually writes.
    Plan p = megatron_plan("mixtral-8x7b", std::vector<int>(4, 8));
    p.job.recompute = Recompute::full;
    p.job.sequence_parallel = p.job.flash_attention = p.job.zero1 = true;
    p.virtual_stages = 2;
    p.num_micro_batches = 1024;
    for (const std::string& w : megatron_args(p, 600, pretrain()))
        if (w.rfind("--", 0) == 0) EXPECT_TRUE(megatron.count(w)) << w;
}

}  // namespace
}  // namespace spiderflow
