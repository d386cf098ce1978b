// `spiderflow jobs` and `spiderflow cancel`: the federation's cross-site jobs as its broker holds
// them (doc/broker-api.md, "Cross-site jobs"), and ending one.
#include <cstdio>
#include <ctime>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/plan/nccl_env.h"
#include "common/util/cli_options.h"
#include "common/util/errors.h"
#include "services/broker_client/broker_api_types.h"
#include "services/coalloc/xjob_json.h"
#include "services/launch/launch_env.h"
#include "services/probe/link_health.h"
#include "services/slurmjob/spiderflow_conf.h"
#include "tools/spiderflow/command.h"
#include "tools/spiderflow/federation_view.h"

namespace spiderflow::cli {
namespace {

constexpr const char* kJobsUsage =
    "usage: spiderflow jobs --broker URL [--token-file FILE] [--ca FILE] [--format text|json] [ID]\n\n"
    "Lists the cross-site jobs the broker holds: each job's state, its parts with their clusters,\n"
    "nodes, ranks and Slurm job ids, the common start, and why a job failed. With ID, that job\n"
    "alone with its history. A link between a job's clusters measured below spiderflow.conf's\n"
    "degraded_link_fraction (default 0.5) of what the job was planned on is flagged on the job.\n\n";

constexpr const char* kJobsFooter =
    "\nExit status: 0 shown, 2 bad options, 3 the broker could not be reached or refused.\n";

constexpr const char* kCancelUsage =
    "usage: spiderflow cancel --broker URL --token-file FILE [--ca FILE] [--reason TEXT] ID\n\n"
    "Ends every part of cross-site job ID (and removes their reservations). Needs the token of a\n"
    "cluster that holds a part of the job (an admin's tool). A user ends a cross-site job with\n"
    "scancel of its part on any cluster: the other parts end with it.\n\n";

constexpr const char* kCancelFooter =
    "Exit status: 0 cancelled, 2 bad options, 3 the broker could not be reached or refused.\n";

struct Options {
    std::string url, token_file, ca, format = "text", reason, id;
};

// jobs and cancel take the same options; jobs lists them in its --help, cancel names them in its usage.
// False when --help was asked for (and printed).
bool parse(const std::vector<std::string>& args, const std::string& command, const char* usage, const char* footer,
           bool list_options, Options& o) {
    OptionTable t("spiderflow " + command, usage, footer, 21);
    auto listed = [list_options](const char* help) { return list_options ? help : ""; };
    t.value("--broker", "URL", listed("the broker (several, comma-separated, for brokers sharing MariaDB)"), store(&o.url));
    t.value("--token-file", "FILE", listed("a reader's (or a cluster's) token, in a file only you can read"),
            store(&o.token_file));
    t.value("--ca", "FILE", listed("the CA certificate that signs the broker's certificate"), store(&o.ca));
    t.value("--format", "FMT", listed("text (default) or json"), one_of(&o.format, {"text", "json"}));
    t.value("--reason", "TEXT", "", store(&o.reason));
    t.words(1);
    const auto p = t.parse_or_help(args, 1, std::cout);
    if (!p) return false;
    if (!p->words.empty()) o.id = p->words[0];
    if (o.url.empty()) throw InputError(t.command(), 0, "--broker", "is required");
    return true;
}

std::string when(int64_t t) {
    if (t <= 0) return "-";
    char buf[32];
    const std::time_t tt = static_cast<std::time_t>(t);
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", std::localtime(&tt));
    return buf;
}

// The site's degraded_link_fraction; a missing or broken spiderflow.conf (this command also runs
// off the cluster) leaves the default.
double degraded_fraction() {
    try {
        return slurmjob::load_spiderflow_conf(slurmjob::spiderflow_conf_path()).degraded_link_fraction;
    } catch (const std::exception&) {
        return slurmjob::SpiderflowConf{}.degraded_link_fraction;
    }
}

// A job's links measured below what it was planned on; nullopt for a job that crosses no
// clusters, or when the federation could not be read.
using Flags = std::vector<std::optional<std::vector<probe::DegradedLink>>>;

// The degraded links of every job that crosses clusters, from the federation's measured links.
// The job's clusters and narrowest planned link are the launch contract's, read as its steps read them.
Flags degraded_links(const std::vector<coalloc::XJob>& jobs, const BrokerClient& client) {
    Flags flags(jobs.size());
    std::vector<std::pair<size_t, CommFacts>> crossing;
    for (size_t i = 0; i < jobs.size(); ++i) {
        const auto& env = jobs[i].step_env;
        if (env.empty()) continue;
        CommFacts facts = comm_facts_from_env([&env](const std::string& k) {
            for (const auto& [name, value] : env) {
                if (name == k) return value;
            }
            return std::string();
        });
        if (facts.crosses_clusters()) crossing.emplace_back(i, std::move(facts));
    }
    if (crossing.empty()) return flags;
    FederationView fed;
    try {
        fed = fetch_federation(client);
    } catch (const std::exception& e) {   // the jobs are still worth showing without the flags
        std::cerr << "spiderflow: jobs: links not checked: " << e.what() << "\n";
        return flags;
    }
    const double fraction = degraded_fraction();
    for (const auto& [i, facts] : crossing) flags[i] = probe::degraded_links(*fed.state, facts.clusters, facts.min_wan_Bps, fraction);
    return flags;
}

double gbps(double Bps) { return Bps * 8 / 1e9; }

// The job as the broker gave it, with its degraded links when they were checked.
nlohmann::json job_json(const coalloc::XJob& job, const std::optional<std::vector<probe::DegradedLink>>& flags) {
    nlohmann::json j = coalloc::xjob_to_json(job, false);
    if (!flags) return j;
    nlohmann::json flagged = nlohmann::json::array();
    for (const probe::DegradedLink& d : *flags)
        flagged.push_back({{"a", d.a}, {"b", d.b}, {"measured_gbps", gbps(d.measured_Bps)},
                           {"planned_gbps", gbps(d.planned_Bps)}, {"measured_at", d.measured_at}, {"source", d.source}});
    j["degraded_links"] = flagged;
    return j;
}

void print_job(const coalloc::XJob& j, const std::optional<std::vector<probe::DegradedLink>>& flags, bool history) {
    std::printf("%-20s %-12s user %-12s world %-6d start %s\n", j.id.c_str(), coalloc::state_name(j.state), j.user.c_str(),
                coalloc::world_size(j), when(j.start_at).c_str());
    for (size_t k = 0; k < j.parts.size(); ++k) {
        const coalloc::Part& p = j.parts[k];
        std::string nodes;
        for (const auto& n : p.nodes) nodes += (nodes.empty() ? "" : ",") + n;
        const std::string state = p.ended ? "ended" : p.running ? "running" : "-";
        const int first = coalloc::first_rank(j, k);
        std::printf("  part %zu  %-14s %3d nodes x %d GPUs  ranks %d-%d  job %-8s %-8s %s\n", k, p.spec.cluster.c_str(),
                    p.spec.nodes, p.spec.gpus_per_node, first, first + p.spec.ranks - 1,
                    p.job_id ? std::to_string(p.job_id).c_str() : "-", state.c_str(), nodes.c_str());
        // Where a part the agent submitted writes (its job name in its user's home there, as the
        // agent submits it); sbatch could only describe the name before the job had an id.
        if (p.job_id != 0 && !coalloc::uses_home_job(j, k)) {
            std::printf("          output on %s: ~/%s.out\n", p.spec.cluster.c_str(), coalloc::part_tag(j, k).c_str());
        }
    }
    const std::string rendezvous = coalloc::rendezvous(j);
    if (!rendezvous.empty()) std::printf("  rendezvous %s (MASTER_ADDR:MASTER_PORT in every part)\n", rendezvous.c_str());
    if (!j.reason.empty()) std::printf("  reason: %s\n", j.reason.c_str());
    // Each run: its layout, where it ran, and why it ended (a job requeued after a failure has several).
    for (const coalloc::Run& r : j.runs) {
        std::printf("  run %d  %s on %s  from %s  %s%s\n", r.number, r.layout.c_str(), r.placement.c_str(),
                    when(r.started_at).c_str(), r.ended_at == 0 ? "running" : ("until " + when(r.ended_at)).c_str(),
                    r.ended_at == 0 ? "" : (": " + r.end).c_str());
    }
    if (j.state == coalloc::XJobState::Queued && j.replan_at != 0) {
        std::printf("  run %d: planned anew at %s, without what failed\n", coalloc::run_number(j), when(j.replan_at).c_str());
    }
    if (flags) {
        for (const probe::DegradedLink& d : *flags)
            std::printf("  link %s <-> %s measured %.3g Gbps at %s by %s: below the %.3g Gbps the job was planned on\n",
                        d.a.c_str(), d.b.c_str(), gbps(d.measured_Bps), when(d.measured_at).c_str(), d.source.c_str(),
                        gbps(d.planned_Bps));
    }
    if (history) {
        for (const coalloc::Event& e : j.events) std::printf("  %s  %s\n", when(e.at).c_str(), e.text.c_str());
    }
}

int run_jobs(const std::vector<std::string>& args) {
    Options o;
    if (!parse(args, "jobs", kJobsUsage, kJobsFooter, true, o)) return kExitOk;
    try {
        const BrokerClient client(broker_endpoint(o.url, o.token_file, o.ca));
        const std::string route = o.id.empty() ? "/v1/xjobs" : "/v1/xjobs/" + o.id;
        const std::string source = client.endpoint().url + route;
        const std::vector<coalloc::XJob> jobs = o.id.empty() ? broker_api::xjobs_from_text(client.get(route), source)
                                                             : std::vector{broker_api::xjob_from_text(client.get(route), source)};
        const Flags flags = degraded_links(jobs, client);
        if (o.format == "json") {
            nlohmann::json list = nlohmann::json::array();
            for (size_t i = 0; i < jobs.size(); ++i) list.push_back(job_json(jobs[i], flags[i]));
            const nlohmann::json answer = o.id.empty() ? nlohmann::json{{"api_version", broker_api::kVersion}, {"xjobs", list}} : list[0];
            std::cout << answer.dump(2) << "\n";
            return kExitOk;
        }
        if (!o.id.empty()) {
            print_job(jobs[0], flags[0], true);
            return kExitOk;
        }
        if (jobs.empty()) std::printf("no cross-site jobs\n");
        for (size_t i = 0; i < jobs.size(); ++i) print_job(jobs[i], flags[i], false);
        return kExitOk;
    } catch (const BrokerError& e) {
        std::cerr << "spiderflow: jobs: " << e.what() << "\n";
        return 3;
    }
}

int run_cancel(const std::vector<std::string>& args) {
    Options o;
    if (!parse(args, "cancel", kCancelUsage, kCancelFooter, false, o)) return kExitOk;
    if (o.id.empty()) throw InputError("spiderflow cancel", 0, "ID", "names no cross-site job (see 'spiderflow jobs')");
    if (o.token_file.empty()) throw InputError("spiderflow cancel", 0, "--token-file", "is required: a cluster's token");
    try {
        const BrokerClient client(broker_endpoint(o.url, o.token_file, o.ca));
        const std::string route = "/v1/xjobs/" + o.id + "/cancel";
        const broker_api::XJobState answer =
            broker_api::xjob_state_from_text(client.post(route, broker_api::cancel_to_text(o.reason)), client.endpoint().url + route);
        std::printf("%s: %s; every part is being ended\n", o.id.c_str(), answer.state.c_str());
        return kExitOk;
    } catch (const BrokerError& e) {
        std::cerr << "spiderflow: cancel: " << e.what() << "\n";
        return 3;
    }
}

const Registration jobs_reg{"jobs", "cross-site jobs from the broker: parts, clusters, ranks, state", &run_jobs};
const Registration cancel_reg{"cancel", "end every part of a cross-site job", &run_cancel};

}  // namespace
}  // namespace spiderflow::cli
