// `spiderflow job-plan`: the plan a running job was given, as JSON, text or its host list in rank
// order, so a batch script (or a person) can read what job_submit decided.
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "common/plan/plan_json.h"
#include "common/plan/plan_text.h"
#include "common/topology/reader.h"
#include "common/util/errors.h"
#include "services/slurmjob/hostlist.h"
#include "services/slurmjob/spiderflow_conf.h"
#include "common/util/cli_options.h"
#include "tools/spiderflow/command.h"
#include "tools/spiderflow/job_plan_source.h"
#include "tools/spiderflow/launch_hosts.h"

namespace spiderflow::cli {
namespace {

constexpr const char* kUsage =
    "usage: spiderflow job-plan [JOBID] [--format json|text|hosts] [--topology FILE]\n\n"
    "Prints the plan job_submit/spiderflow gave a job (default: the job this runs in, $SLURM_JOB_ID).\n"
    "A batch job carries its plan in its environment; salloc and srun jobs in their AdminComment.\n\n";

int run_job_plan(const std::vector<std::string>& args) {
    std::string format = "json", topology_path;
    OptionTable t("spiderflow job-plan", kUsage, "", 19);
    t.value("--format", "FMT", "", one_of(&format, {"json", "text", "hosts"}));
    t.line("--format json", "the plan JSON (default)");
    t.line("--format text", "the plan explained (needs the topology)");
    t.line("--format hosts", "one host per rank, in rank order, for this job's nodes: what\n"
                             "`spiderflow launch` gives srun as SLURM_HOSTFILE");
    t.value("--topology", "FILE", "topology to resolve node names (default: the site config's)", store(&topology_path));
    t.words(1);
    const auto p = t.parse_or_help(args, 1, std::cout);
    if (!p) return kExitOk;
    const std::string job_id = p->words.empty() ? "" : p->words[0];
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
