// `spiderflow job-plan`: the plan a running job was given, as JSON, text or its host list in rank
// order, so a batch script (or a person) can read what job_submit decided.
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "libspiderflow/plan/plan_json.h"
#include "libspiderflow/plan/plan_text.h"
#include "libspiderflow/topology/reader.h"
#include "libspiderflow/util/errors.h"
#include "services/slurmjob/hostlist.h"
#include "services/slurmjob/spiderflow_conf.h"
#include "tools/spiderflow/command.h"
#include "tools/spiderflow/job_plan_source.h"
#include "tools/spiderflow/launch_hosts.h"

namespace spiderflow::cli {
namespace {

constexpr const char* kHelp =
    "usage: spiderflow job-plan [JOBID] [--format json|text|hosts] [--topology FILE]\n\n"
    "Prints the plan job_submit/spiderflow gave a job (default: the job this runs in, $SLURM_JOB_ID).\n"
    "A batch job carries its plan in its environment; salloc and srun jobs in their AdminComment.\n\n"
    "  --format json    the plan JSON (default)\n"
    "  --format text    the plan explained (needs the topology)\n"
    "  --format hosts   one host per rank, in rank order, for this job's nodes: what\n"
    "                   `spiderflow launch` gives srun as SLURM_HOSTFILE\n"
    "  --topology FILE  topology to resolve node names (default: the site config's)\n";

int run_job_plan(const std::vector<std::string>& args) {
    std::string job_id, format = "json", topology_path;
    for (size_t i = 1; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= args.size()) throw InputError("spiderflow job-plan", 0, a, "needs a value");
            return args[++i];
        };
        if (a == "--help" || a == "-h") {
            std::cout << kHelp;
            return kExitOk;
        } else if (a == "--format") {
            format = value();
        } else if (a == "--topology") {
            topology_path = value();
        } else if (!a.empty() && a[0] != '-' && job_id.empty()) {
            job_id = a;
        } else {
            throw InputError("spiderflow job-plan", 0, a, "unknown option (see --help)");
        }
    }
    if (format != "json" && format != "text" && format != "hosts") {
        throw InputError("spiderflow job-plan", 0, "--format", "expected json, text or hosts, got '" + format + "'");
    }
    const JobPlanText found = job_plan_text(job_id);
    if (topology_path.empty()) {
        const std::string conf = slurmjob::spiderflow_conf_path();
        try {
            topology_path = slurmjob::load_spiderflow_conf(conf).topology;
        } catch (const InputError&) {
            // No readable site config: names come from the plan's own indices.
        }
    }
    std::optional<Topology> topo;
    if (!topology_path.empty()) topo = read_topology(topology_path);
    if (format == "json") {
        std::cout << nlohmann::json::parse(found.json).dump(2) << "\n";
        return kExitOk;
    }
    if (!topo) throw InputError("spiderflow job-plan", 0, "--topology", "--format " + format + " needs the topology");
    const Plan plan = plan_from_json(found.json, found.source, &*topo);
    if (format == "text") {
        std::cout << plan_to_text(plan, *topo);
        return kExitOk;
    }
    const char* nodelist = std::getenv("SLURM_JOB_NODELIST");
    if (nodelist == nullptr || (!job_id.empty() && job_id != std::getenv("SLURM_JOB_ID"))) {
        throw InputError("spiderflow job-plan", 0, "--format", "hosts: run it inside the job (it lists the job's nodes)");
    }
    for (const auto& h : launch_hosts(plan, &*topo, slurmjob::expand_hostlist(nodelist), "srun")) std::cout << h << "\n";
    return kExitOk;
}

const Registration reg{"job-plan", "print the plan of a running job (JSON, text or host list)", &run_job_plan};

}  // namespace
}  // namespace spiderflow::cli
