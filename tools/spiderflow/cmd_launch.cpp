// `spiderflow launch`: inside a batch script, starts the planned job's srun step (torchrun or
// Megatron-LM with matching parallel flags) with the job-wide NCCL/c10d environment; the SPANK
// plugin adds the per-rank variables in each task. --dry-run prints the script instead.
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "common/plan/launch_writer.h"
#include "common/plan/plan_json.h"
#include "common/topology/reader.h"
#include "common/util/errors.h"
#include "plugins/common/job_traffic.h"
#include "plugins/common/site_config.h"
#include "tools/spiderflow/command.h"

namespace spiderflow::cli {
namespace {

constexpr const char* kHelp =
    "usage: spiderflow launch [--dry-run] [--plan FILE] [--launcher srun|torchrun]\n"
    "                         [--megatron|--no-megatron] [--topology FILE] [--traffic-level L]\n"
    "                         [--group-classes] -- PROGRAM [ARGS...]\n\n"
    "Run inside a batch script of a job planned by job_submit/spiderflow (or give --plan).\n"
    "Starts one srun step: one task per GPU running PROGRAM (srun), or one torchrun per node.\n"
    "Megatron-LM's pretrain_gpt.py gets --tensor/--pipeline-model-parallel-size, the layer split,\n"
    "micro/global batch and timeouts from the plan.\n\n"
    "  --plan FILE       plan JSON (default: $SLURM_SPANK_SPIDERFLOW_PLAN, then $SPIDERFLOW_PLAN)\n"
    "  --launcher NAME   srun (default) or torchrun\n"
    "  --megatron        add Megatron-LM flags (default: when PROGRAM runs pretrain_gpt.py)\n"
    "  --topology FILE   compute the crossed links' RTT from this topology instead of the job's env\n"
    "  --traffic-level L the job's traffic class level, 0 (highest) .. 5 (best effort; default:\n"
    "                    $SLURM_SPANK_SPIDERFLOW_TRAFFIC_LEVEL, then $SPIDERFLOW_TRAFFIC_LEVEL). With the\n"
    "                    site's nccl_group_classes, exports SPIDERFLOW_NCCL_TC_EP/PP/DP for the\n"
    "                    framework's communicator configs (NCCL >= 2.26) and unsets NCCL_IB_TC/SL;\n"
    "                    otherwise sets the job's NCCL_IB_TC/SL\n"
    "  --group-classes   per-communicator-group classes for this job even when the site's\n"
    "                    nccl_group_classes is off (the framework must pass them to NCCL >= 2.26)\n"
    "  --dry-run         print the script and exit\n";

std::string env_or(const char* a, const char* b) {
    if (const char* v = std::getenv(a); v && *v) return v;
    if (const char* v = std::getenv(b); v && *v) return v;
    return {};
}

std::string read_file(const std::string& path) {
    std::ifstream f(path);
    if (!f) throw InputError(path, 0, "--plan", "cannot read plan file");
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

// Without a topology, the facts job_submit left in the job's environment.
CommFacts facts_from_env() {
    return comm_facts_from_env([](const std::string& name) { return env_or(("SLURM_SPANK_" + name).c_str(), name.c_str()); });
}

plugin::SiteConfig site_config() {
    const std::string path = plugin::site_config_path();
    if (::access(path.c_str(), R_OK) != 0) return {};
    return plugin::load_site_config(path);
}

int run_launch(const std::vector<std::string>& args) {
    bool dry_run = false, group_classes = false;
    std::string plan_path, topology_path, traffic_level;
    LaunchRequest req;
    size_t i = 1;
    auto value = [&](const std::string& opt) -> std::string {
        if (i + 1 >= args.size()) throw InputError("spiderflow launch", 0, opt, "needs a value");
        return args[++i];
    };
    for (; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--") {
            ++i;
            break;
        }
        if (a == "--help" || a == "-h") {
            std::cout << kHelp;
            return kExitOk;
        } else if (a == "--dry-run") {
            dry_run = true;
        } else if (a == "--plan") {
            plan_path = value(a);
        } else if (a == "--launcher") {
            req.launcher = value(a);
        } else if (a == "--megatron") {
            req.megatron = 1;
        } else if (a == "--no-megatron") {
            req.megatron = 0;
        } else if (a == "--topology") {
            topology_path = value(a);
        } else if (a == "--group-classes") {
            group_classes = true;
        } else if (a == "--traffic-level") {
            traffic_level = value(a);
        } else {
            throw InputError("spiderflow launch", 0, a, "unknown option (see --help); the program goes after '--'");
        }
    }
    req.command.assign(args.begin() + static_cast<long>(std::min(i, args.size())), args.end());
    if (plan_path.empty()) plan_path = env_or("SLURM_SPANK_SPIDERFLOW_PLAN", "SPIDERFLOW_PLAN");
    if (plan_path.empty()) {
        throw InputError("spiderflow launch", 0, "--plan",
                         "no plan: give --plan FILE or run inside a job planned by job_submit/spiderflow");
    }
    req.plan_path = plan_path;
    CommFacts facts;
    Plan plan;
    if (!topology_path.empty()) {
        const Topology topo = read_topology(topology_path);
        plan = plan_from_json(read_file(plan_path), plan_path, &topo);
        facts = comm_facts(plan, topo);
    } else {
        plan = plan_from_json(read_file(plan_path), plan_path, nullptr);
        facts = facts_from_env();
    }
    plugin::SiteConfig site = site_config();
    site.nccl_group_classes = site.nccl_group_classes || group_classes;
    req.nccl = plugin::nccl_settings(site);
    LaunchScript script = write_launch(plan, facts, req);
    if (traffic_level.empty()) traffic_level = env_or("SLURM_SPANK_SPIDERFLOW_TRAFFIC_LEVEL", plugin::kTrafficLevelVar);
    script.unset = plugin::apply_job_class_env(script.env, site, traffic_level);
    if (dry_run) {
        std::cout << script.text();
        return kExitOk;
    }
    for (const auto& k : script.unset) unsetenv(k.c_str());
    for (const auto& [k, v] : script.env) setenv(k.c_str(), v.c_str(), 1);
    const auto& step = script.steps.front();
    std::vector<char*> argv;
    for (const auto& w : step) argv.push_back(const_cast<char*>(w.c_str()));
    argv.push_back(nullptr);
    std::cerr << "spiderflow: launching " << script.steps.front().size() << "-word srun step for " << plan.world_size()
              << " ranks\n";
    execvp(argv[0], argv.data());
    std::cerr << "spiderflow: cannot run " << argv[0] << "\n";
    return kExitFindings;
}

const Registration reg{"launch", "start the planned job's srun step (torchrun / Megatron-LM)", &run_launch};

}  // namespace
}  // namespace spiderflow::cli
