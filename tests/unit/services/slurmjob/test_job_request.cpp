// The job request has one home: sbatch's options are a RequestOptions, the names the builder's
// messages use come from the option table, and job_submit's cache key is every field of the
// request, the Slurm request and the config.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "common/model/catalog.h"
#include "common/planner/request_builder.h"
#include "common/util/errors.h"
#include "services/slurmjob/job_options.h"
#include "services/slurmjob/submit_planner.h"

using namespace spiderflow;
using namespace spiderflow::slurmjob;

namespace {

struct Inputs {
    JobOptions options;
    SlurmRequest request;
    SpiderflowConf config;

    DecisionKey key() const { return decision_key(options, request, config); }
};

Inputs base() {
    Inputs in;
    in.options.model = "llama3-8b";
    in.options.global_batch = 64;
    in.request.gpus = 16;
    in.request.gpus_text = "--gpus=16";
    in.config.cluster = "here";
    return in;
}

struct Change {
    const char* field;
    void (*apply)(Inputs&);
};

// One change per field, nested ones included; the key must tell each from the base.
const std::vector<Change>& one_field_changes() {
    static const std::vector<Change> changes = {
        // The request, as sbatch's options and `spiderflow plan` fill it.
        {"model", [](Inputs& in) { in.options.model = "llama3-70b"; }},
        {"job", [](Inputs& in) { in.options.job = JobSpec{}; }},
        {"job.model.layers", [](Inputs& in) { in.options.job = JobSpec{}; in.options.job->model.layers = 1; }},
        {"job.sync.inner_steps", [](Inputs& in) { in.options.job = JobSpec{}; in.options.job->sync.inner_steps = 7; }},
        {"global_batch", [](Inputs& in) { in.options.global_batch = 128; }},
        {"seq_len", [](Inputs& in) { in.options.seq_len = 4096; }},
        {"micro_batch", [](Inputs& in) { in.options.micro_batch = 2; }},
        {"precision", [](Inputs& in) { in.options.precision = "fp32"; }},
        {"recompute", [](Inputs& in) { in.options.recompute = Recompute::none; }},
        {"sequence_parallel", [](Inputs& in) { in.options.sequence_parallel = false; }},
        {"flash_attention", [](Inputs& in) { in.options.flash_attention = true; }},
        {"gpus", [](Inputs& in) { in.options.gpus = 16; }},
        {"gpu_mode", [](Inputs& in) { in.options.gpu_mode = GpuCountMode::best; }},
        {"objective", [](Inputs& in) { in.options.objective = "throughput"; }},
        {"policy", [](Inputs& in) { in.options.policy = "greedy"; }},
        {"sync", [](Inputs& in) { in.options.sync = "diloco"; }},
        {"inner_steps", [](Inputs& in) { in.options.inner_steps = 50; }},
        {"outer_precision", [](Inputs& in) { in.options.outer_precision = "int8"; }},
        {"streaming", [](Inputs& in) { in.options.streaming = false; }},
        {"allowed_clusters", [](Inputs& in) { in.options.allowed_clusters = {"here"}; }},
        {"forbidden_clusters", [](Inputs& in) { in.options.forbidden_clusters = {"there"}; }},
        {"tp", [](Inputs& in) { in.options.tp = 2; }},
        {"pp", [](Inputs& in) { in.options.pp = 2; }},
        {"dp", [](Inputs& in) { in.options.dp = 2; }},
        {"time_limit_s", [](Inputs& in) { in.options.time_limit_s = 1; }},
        {"seed", [](Inputs& in) { in.options.seed = 2; }},
        {"plan_file", [](Inputs& in) { in.options.plan_file = "plan.json"; }},
        {"plan_content", [](Inputs& in) { in.options.plan_content = "z1:AAAA"; }},
        // What the job asked of Slurm.
        {"request.gpus", [](Inputs& in) { in.request.gpus = 8; }},
        {"request.gpus_per_node", [](Inputs& in) { in.request.gpus_per_node = 8; }},
        {"request.gpu_type", [](Inputs& in) { in.request.gpu_type = "h100"; }},
        {"request.gpus_text", [](Inputs& in) { in.request.gpus_text = "--gpus=h100:16"; }},
        {"request.gpu_count_missing", [](Inputs& in) { in.request.gpu_count_missing = true; }},
        {"request.nodes", [](Inputs& in) { in.request.nodes = 2; }},
        {"request.ntasks", [](Inputs& in) { in.request.ntasks = 16; }},
        {"request.ntasks_per_node", [](Inputs& in) { in.request.ntasks_per_node = 8; }},
        // The site's config.
        {"config.source", [](Inputs& in) { in.config.source = "/etc/slurm/other.conf"; }},
        {"config.enabled", [](Inputs& in) { in.config.enabled = false; }},
        {"config.topology", [](Inputs& in) { in.config.topology = "topo.json"; }},
        {"config.topology_format", [](Inputs& in) { in.config.topology_format = "slurm"; }},
        {"config.cluster", [](Inputs& in) { in.config.cluster = "there"; }},
        {"config.site_state", [](Inputs& in) { in.config.site_state = "state.json"; }},
        {"config.site_state_max_age_s", [](Inputs& in) { in.config.site_state_max_age_s = 60; }},
        {"config.cross_site", [](Inputs& in) { in.config.cross_site = false; }},
        {"config.controller_agent", [](Inputs& in) { in.config.controller_agent = "agent.conf"; }},
        {"config.coflow_levels", [](Inputs& in) { in.config.coflow_levels = false; }},
        {"config.policy", [](Inputs& in) { in.config.policy = "greedy"; }},
        {"config.time_budget_s", [](Inputs& in) { in.config.time_budget_s = 2; }},
        {"config.state_dir", [](Inputs& in) { in.config.state_dir = "/tmp"; }},
        {"config.constrain_gpu_type", [](Inputs& in) { in.config.constrain_gpu_type = true; }},
        {"config.master_port_base", [](Inputs& in) { in.config.master_port_base = 30000; }},
        {"config.master_port_span", [](Inputs& in) { in.config.master_port_span = 10; }},
        {"config.site_env_wins", [](Inputs& in) { in.config.site_env_wins = false; }},
        {"config.socket_ifname", [](Inputs& in) { in.config.socket_ifname = "eth1"; }},
        {"config.ib_hca", [](Inputs& in) { in.config.ib_hca = "mlx5_1"; }},
        {"config.ib_tc", [](Inputs& in) { in.config.ib_tc = 106; }},
        {"config.ib_sl", [](Inputs& in) { in.config.ib_sl = 3; }},
        {"config.wan_ib_tc", [](Inputs& in) { in.config.wan_ib_tc = 41; }},
        {"config.wan_ib_sl", [](Inputs& in) { in.config.wan_ib_sl = 1; }},
        {"config.nccl_timeout_base_s", [](Inputs& in) { in.config.nccl_timeout_base_s = 60; }},
        {"config.rdzv_timeout_base_s", [](Inputs& in) { in.config.rdzv_timeout_base_s = 60; }},
        {"config.traffic_control", [](Inputs& in) { in.config.traffic_control = true; }},
        {"config.wan_interface", [](Inputs& in) { in.config.wan_interface = "wan0"; }},
        {"config.wan_rate_mbit", [](Inputs& in) { in.config.wan_rate_mbit = 1000; }},
        {"config.tc_match", [](Inputs& in) { in.config.tc_match = "fwmark"; }},
        {"config.nccl_group_classes", [](Inputs& in) { in.config.nccl_group_classes = true; }},
    };
    return changes;
}

}  // namespace

TEST(DecisionKey, IdenticalRequestsShareOneKey) {
    const DecisionKey a = base().key();
    const DecisionKey b = base().key();
    EXPECT_EQ(a, b);
    EXPECT_FALSE(a < b);
    EXPECT_FALSE(b < a);
}

TEST(DecisionKey, RequestsDifferingInAnyOneFieldGetDifferentKeys) {
    const DecisionKey plain = base().key();
    std::set<DecisionKey> keys = {plain};
    for (const Change& c : one_field_changes()) {
        Inputs in = base();
        c.apply(in);
        const DecisionKey changed = in.key();
        EXPECT_NE(changed, plain) << c.field;
        EXPECT_TRUE(changed < plain || plain < changed) << c.field << ": the cache's order must tell them apart";
        keys.insert(changed);
    }
    // Every change is its own cache entry, none shadowing another.
    EXPECT_EQ(keys.size(), one_field_changes().size() + 1);
}

TEST(DecisionKey, AJobThatNamesNoPolicyIsKeyedByTheConfigs) {
    Inputs unnamed = base();
    Inputs named = base();
    named.options.policy = unnamed.config.policy;
    EXPECT_EQ(unnamed.key(), named.key());
    named.options.policy = "greedy";
    EXPECT_NE(unnamed.key(), named.key());
}

TEST(JobRequest, SbatchOptionsAreTheRequest) {
    static_assert(std::is_base_of_v<RequestOptions, JobOptions>, "sbatch's options are a planning request");
    JobOptions o;
    set_job_option(o, "llm-model", "llama3-8b");
    set_job_option(o, "llm-global-batch", "64");
    set_job_option(o, "llm-gpus", "16");
    set_job_option(o, "llm-policy", "greedy");
    const RequestOptions& request = o;
    EXPECT_EQ(request.model, "llama3-8b");
    EXPECT_EQ(request.policy, "greedy");
    const PlanRequest planned = build_plan_request(o, Catalog::builtin(), sbatch_option_names(), "job options");
    EXPECT_EQ(planned.job.global_batch, 64);
    EXPECT_EQ(planned.job.gpus, 16);
}

TEST(JobRequest, SbatchOptionNamesComeFromTheTable) {
    const OptionNames& sbatch = sbatch_option_names();
    std::set<std::string> table;
    for (const auto& info : option_table()) {
        table.insert(std::string("--") + info.name);
        if (info.names_member != nullptr) {
            EXPECT_EQ(sbatch.*info.names_member, std::string("--") + info.name);
        }
    }
    // Any name that differs from the builder's own spelling is one of the table's options.
    const OptionNames plain;
    for (std::string OptionNames::*member :
         {&OptionNames::model, &OptionNames::global_batch, &OptionNames::seq_len, &OptionNames::micro_batch,
          &OptionNames::gpus, &OptionNames::gpu_mode, &OptionNames::objective, &OptionNames::policy,
          &OptionNames::precision, &OptionNames::sync, &OptionNames::inner_steps, &OptionNames::outer_precision,
          &OptionNames::streaming}) {
        if (sbatch.*member != plain.*member) {
            EXPECT_EQ(table.count(sbatch.*member), 1u) << sbatch.*member;
        }
    }
    EXPECT_EQ(sbatch.model, "--llm-model");
    EXPECT_EQ(sbatch.gpus, "--gpus") << "Slurm's own --gpus wins over --llm-gpus, so messages name it";
    EXPECT_FALSE(sbatch.sync_either) << "a job runs one mode";
    // The builder's messages say what the user typed.
    JobOptions no_batch;
    no_batch.model = "llama3-8b";
    no_batch.gpus = 16;
    try {
        (void)build_plan_request(no_batch, Catalog::builtin(), sbatch, "job options");
        FAIL();
    } catch (const InputError& e) {
        EXPECT_EQ(e.field(), "--llm-global-batch");
    }
}
