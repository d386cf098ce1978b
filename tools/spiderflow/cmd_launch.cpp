// `spiderflow launch`: inside a batch script, starts the planned job's srun step (torchrun or
// Megatron-LM with matching parallel flags) with the job-wide NCCL/c10d environment; the SPANK
// plugin adds the per-rank variables in each task. --dry-run prints the script instead.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "common/plan/plan_json.h"
#include "common/plan/plan_parts.h"
#include "common/plan/plan_transport.h"
#include "common/topology/reader.h"
#include "common/util/cli_options.h"
#include "common/util/errors.h"
#include "common/util/parse_number.h"
#include "services/launch/launch_contract.h"
#include "services/launch/launch_env.h"
#include "services/launch/launch_writer.h"
#include "services/slurmjob/hostlist.h"
#include "services/slurmjob/job_traffic.h"
#include "services/slurmjob/rank_order.h"
#include "services/slurmjob/spiderflow_conf.h"
#include "services/start_barrier/start_barrier.h"
#include "tools/spiderflow/command.h"
#include "tools/spiderflow/job_plan_source.h"
#include "tools/spiderflow/launch_hosts.h"

namespace spiderflow::cli {
namespace {

constexpr const char* kUsage =
    "usage: spiderflow launch [--dry-run] [--plan FILE] [--launcher srun|torchrun]\n"
    "                         [--megatron|--no-megatron] [--topology FILE] [--traffic-level L]\n"
    "                         [--group-classes] -- PROGRAM [ARGS...]\n\n"
    "Run inside a batch script of a job planned by job_submit/spiderflow (or give --plan).\n"
    "Starts one srun step: one task per GPU running PROGRAM (srun), or one torchrun per node.\n"
    "Inside a job, Slurm places the tasks in the plan's rank order (--distribution=arbitrary\n"
    "with a host list in rank order), so SLURM_PROCID equals RANK and SLURM_LOCALID LOCAL_RANK.\n"
    "Megatron-LM's pretrain_gpt.py gets --tensor/--pipeline-model-parallel-size, the layer split,\n"
    "micro/global batch and timeouts from the plan.\n"
    "In a part of a cross-site job (doc/federation.md) it starts this cluster's share of the plan,\n"
    "one task per GPU; the tasks' RANK and SLURM_PROCID are global across the parts. The parts\n"
    "wait for each other first (--start-barrier), so every part's ranks start together.\n\n";

std::string env_or(const char* a, const char* b) {
    if (const char* v = std::getenv(a); v && *v) return v;
    if (const char* v = std::getenv(b); v && *v) return v;
    return {};
}

// Without a topology, the facts job_submit left in the job's environment.
CommFacts facts_from_env() {
    return comm_facts_from_env([](const std::string& name) { return env_or((env::kSlurmSpankPrefix + name).c_str(), name.c_str()); });
}

slurmjob::SpiderflowConf spiderflow_conf() {
    const std::string path = slurmjob::spiderflow_conf_path();
    if (::access(path.c_str(), R_OK) != 0) return {};
    return slurmjob::load_spiderflow_conf(path);
}

int run_launch(const std::vector<std::string>& args) {
    bool dry_run = false, group_classes = false;
    double barrier_s = 360;
    std::string plan_path, topology_path, traffic_level;
    LaunchRequest req;
    OptionTable t("spiderflow launch", kUsage, "", 20);
    t.value("--plan", "FILE",
            "plan JSON (default: the job's own plan: its environment, or for salloc and\n"
            "srun jobs its AdminComment; see `spiderflow job-plan`)",
            store(&plan_path));
    t.value("--launcher", "NAME", "srun (default) or torchrun", store(&req.launcher));
    t.flag("--megatron", "add Megatron-LM flags (default: when PROGRAM runs pretrain_gpt.py)",
           [&req](const std::string&) { req.megatron = 1; });
    t.flag("--no-megatron", "", [&req](const std::string&) { req.megatron = 0; });
    t.value("--topology", "FILE", "compute the crossed links' RTT from this topology instead of the job's env",
            store(&topology_path));
    t.value("--traffic-level", "L",
            "the job's traffic class level, 0 (highest) .. 5 (best effort; default:\n"
            "$SLURM_SPANK_SPIDERFLOW_TRAFFIC_LEVEL, then $SPIDERFLOW_TRAFFIC_LEVEL). With the\n"
            "site's nccl_group_classes, exports SPIDERFLOW_NCCL_TC_EP/PP/DP for the\n"
            "framework's communicator configs (NCCL >= 2.26) and unsets NCCL_IB_TC/SL;\n"
            "otherwise sets the job's NCCL_IB_TC/SL",
            store(&traffic_level));
    t.flag("--group-classes",
           "per-communicator-group classes for this job even when the site's\n"
           "nccl_group_classes is off (the framework must pass them to NCCL >= 2.26)",
           set(&group_classes));
    t.value("--lighthouse", "URL",
            "a DiLoCo plan (doc/diloco.md): torchft's lighthouse, reachable from every\n"
            "site (default: $TORCHFT_LIGHTHOUSE). Each site starts its own torchft replica\n"
            "group: one torchrun per node running torchtitan with its DiLoCo flags",
            store(&req.lighthouse));
    t.value("--start-barrier", "SECONDS",
            "in a part of a cross-site job: wait at most this long until every part's\n"
            "launcher runs, then start the ranks together; past it this part ends, naming\n"
            "the parts that never came (default 360: longer than the broker's own start\n"
            "barrier, which queues a job whose parts did not all start; 0 = start at once)",
            number(&barrier_s, 0, 86400));
    t.flag("--dry-run", "print the script and exit", set(&dry_run));
    t.rest().unknown_hint("the program goes after '--'");
    auto p = t.parse_or_help(args, 1, std::cout);
    if (!p) return kExitOk;
    req.command = std::move(p->rest);
    if (req.lighthouse.empty()) req.lighthouse = env_or("TORCHFT_LIGHTHOUSE", "TORCHFT_LIGHTHOUSE");
    // A cross-site job requeued after a failure: its Megatron-LM command resumes from its --save.
    // Unset or not a run number: the first run.
    req.attempt = to_int<int>(env_or((std::string(env::kSlurmSpankPrefix) + env::kAttempt).c_str(), env::kAttempt), 1).value_or(1);
    slurmjob::SpiderflowConf site = spiderflow_conf();
    // The site's topology_format names the reader of the site's own file, never of --topology's.
    std::string reader;
    if (topology_path.empty()) {
        topology_path = site.topology;
        reader = site.topology_format;
    }
    std::optional<Topology> topo;
    if (!topology_path.empty()) topo = read_topology(topology_path, reader);
    std::string plan_text, plan_source = plan_path;
    if (!plan_path.empty()) {
        plan_text = read_plan_file(plan_path);
        req.plan_path = plan_path;
    } else {
        const JobPlanText found = job_plan_text();
        plan_text = found.json;
        plan_source = found.source;
    }
    const Plan plan = plan_from_json(plan_text, plan_source, topo ? &*topo : nullptr);
    const CommFacts facts = topo ? comm_facts(plan, *topo) : facts_from_env();
    site.nccl_group_classes = site.nccl_group_classes || group_classes;
    req.nccl = slurmjob::nccl_settings(site);
    // A part of a cross-site job starts this cluster's share; its tasks' global ranks follow the
    // part's rank base (set by the SPANK plugin).
    const bool part = !env_or((std::string(env::kSlurmSpankPrefix) + env::kRankBase).c_str(), env::kRankBase).empty();
    if (part) {
        const std::string here = env_or("SLURM_CLUSTER_NAME", "SLURM_CLUSTER_NAME");
        if (!topo) throw InputError("spiderflow launch", 0, "--topology", "a part of a cross-site job needs the federation's topology: "
                                                    "the site config's topology= (SPIDERFLOW_CONF), or pass --topology FILE");
        req.part_cluster = topo->cluster_index(here);
        if (req.part_cluster < 0) throw InputError("spiderflow launch", 0, "SLURM_CLUSTER_NAME", "cluster '" + here + "' is not in the topology");
    }
    LaunchScript script = write_launch(plan, facts, req);
    if (traffic_level.empty()) traffic_level = env_or((std::string(env::kSlurmSpankPrefix) + env::kTrafficLevel).c_str(), env::kTrafficLevel);
    script.unset = slurmjob::apply_job_class_env(script.env, site, traffic_level);
    // Inside a job: a host list in the plan's rank order, so Slurm numbers the tasks as the plan does.
    const std::string nodelist = env_or("SLURM_JOB_NODELIST", "SLURM_NODELIST");
    std::vector<std::string> hosts;
    // A DiLoCo site runs one torchrun per node with ranks of its own: Slurm's order will do.
    if (plan.job.sync.diloco()) {
    } else if (!nodelist.empty() && part) {
        // The SPANK plugin numbers a part's ranks in this order (context_remote.cpp).
        const std::vector<std::string> job_nodes = slurmjob::expand_hostlist(nodelist);
        int ranks = 0;
        for (const PlanPart& p : split_by_cluster(plan, *topo)) ranks += p.cluster == req.part_cluster ? p.tasks : 0;
        if (ranks % static_cast<int>(job_nodes.size()) != 0) {
            throw InputError("spiderflow launch", 0, "SLURM_JOB_NODELIST", std::to_string(ranks) + " ranks of this part do not spread evenly over its " +
                                                                              std::to_string(job_nodes.size()) + " nodes");
        }
        for (const auto& s : slurmjob::ordered_rank_slots(job_nodes, std::vector<int>(job_nodes.size(), ranks / static_cast<int>(job_nodes.size())),
                                                          &*topo, facts.clusters)) {
            hosts.push_back(s.node);
        }
    } else if (!nodelist.empty()) {
        hosts = launch_hosts(plan, topo ? &*topo : nullptr, slurmjob::expand_hostlist(nodelist), req.launcher);
    }
    if (dry_run) {
        if (!hosts.empty()) {
            std::cout << "# Slurm places the tasks in the plan's order (srun --distribution=arbitrary), hosts:\n#";
            for (const auto& h : hosts) std::cout << ' ' << h;
            std::cout << "\n";
        }
        std::cout << script.text();
        return kExitOk;
    }
    for (const auto& k : script.unset) unsetenv(k.c_str());
    for (const auto& [k, v] : script.env) setenv(k.c_str(), v.c_str(), 1);
    std::vector<std::string> step = script.steps.front();
    HostFile hostfile;
    if (!hosts.empty()) {
        hostfile = write_hostfile(hosts);
        setenv("SLURM_HOSTFILE", hostfile.path.c_str(), 1);
        // The host file names the nodes; from 24.11 on srun refuses --nodes beside it.
        std::erase_if(step, [](const std::string& a) { return a.rfind("--nodes=", 0) == 0; });
        step.insert(step.begin() + 1, "--distribution=arbitrary");
    }
    if (part && barrier_s > 0) {
        BarrierParty party;
        party.xjob = env_or((std::string(env::kSlurmSpankPrefix) + env::kXJob).c_str(), env::kXJob);
        const auto part_index = to_int<int>(env_or((std::string(env::kSlurmSpankPrefix) + env::kXJobPart).c_str(), env::kXJobPart), 0);
        party.part = part_index.value_or(-1);
        party.parts = static_cast<int>(split_by_cluster(plan, *topo).size());
        party.master_addr = env_or("MASTER_ADDR", env::kMasterAddr);
        party.master_port = to_int<int>(env_or("MASTER_PORT", env::kMasterPort), 1, 65535).value_or(0);
        party.timeout_s = barrier_s;
        party.hangup_grace_s = 0.5 + 3 * facts.max_rtt_s;
        if (party.xjob.empty() || !part_index || party.master_addr.empty() || party.master_port <= 0) {
            throw InputError("spiderflow launch", 0, "--start-barrier", "this part's environment names no cross-site job, "
                                                     "part, MASTER_ADDR or MASTER_PORT (pass --start-barrier 0 to start "
                                                     "without the others)");
        }
        try {
            meet_start_barrier(party, std::cerr);
        } catch (const std::runtime_error& e) {
            std::cerr << "spiderflow launch: " << e.what() << "; this part ends\n";
            return kExitFindings;
        }
    }
    std::cerr << "spiderflow: launching " << (part && !hosts.empty() ? static_cast<int>(hosts.size()) : plan.world_size()) << " ranks"
              << (part ? " (this cross-site part's share of the plan)" : "")
              << (hosts.empty() ? " in Slurm's own order (not inside a job)" : " in the plan's order") << "\n";
    return run_and_wait(step, hostfile);
}

const Registration reg{"launch", "start the planned job's srun step (torchrun / Megatron-LM)", &run_launch};

}  // namespace
}  // namespace spiderflow::cli
