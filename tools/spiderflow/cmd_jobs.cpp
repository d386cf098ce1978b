// `spiderflow jobs` and `spiderflow cancel`: the federation's cross-site jobs as its broker holds
// them (doc/broker-api.md, "Cross-site jobs"), and ending one.
#include <cstdio>
#include <ctime>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/plan/nccl_env.h"
#include "common/util/errors.h"
#include "common/util/cli_options.h"
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

// Adds "degraded_links" to every job that crosses clusters, from the federation's measured links.
// The job's clusters and narrowest planned link are the launch contract's, read as its steps read them.
void flag_degraded_links(nlohmann::json& jobs, const BrokerClient& client) {
    std::vector<std::pair<nlohmann::json*, CommFacts>> crossing;
    for (auto& j : jobs) {
        if (!j.contains("step_env")) continue;
        const nlohmann::json& env = j["step_env"];
        CommFacts facts = comm_facts_from_env([&env](const std::string& k) { return env.value(k, ""); });
        if (facts.crosses_clusters()) crossing.emplace_back(&j, std::move(facts));
    }
    if (crossing.empty()) return;
    FederationView fed;
    try {
        fed = fetch_federation(client);
    } catch (const std::exception& e) {   // the jobs are still worth showing without the flags
        std::cerr << "spiderflow: jobs: links not checked: " << e.what() << "\n";
        return;
    }
    const double fraction = degraded_fraction();
    for (auto& [j, facts] : crossing) {
        nlohmann::json flagged = nlohmann::json::array();
        for (const probe::DegradedLink& d : probe::degraded_links(*fed.state, facts.clusters, facts.min_wan_Bps, fraction))
            flagged.push_back({{"a", d.a}, {"b", d.b}, {"measured_gbps", d.measured_Bps * 8 / 1e9},
                               {"planned_gbps", d.planned_Bps * 8 / 1e9}, {"measured_at", d.measured_at}, {"source", d.source}});
        (*j)["degraded_links"] = flagged;
    }
}

void print_job(const nlohmann::json& j, bool history) {
    std::printf("%-20s %-12s user %-12s world %-6d start %s\n", j.at("id").get<std::string>().c_str(),
                j.at("state").get<std::string>().c_str(), j.at("user").get<std::string>().c_str(),
                j.at("world_size").get<int>(), when(j.at("start_at").get<int64_t>()).c_str());
    for (size_t k = 0; k < j.at("parts").size(); ++k) {
        const auto& p = j.at("parts")[k];
        std::string nodes;
        for (const auto& n : p.at("node_list")) nodes += (nodes.empty() ? "" : ",") + n.get<std::string>();
        const uint32_t id = p.at("job_id").get<uint32_t>();
        const std::string state = p.at("ended").get<bool>() ? "ended" : p.at("running").get<bool>() ? "running" : "-";
        std::printf("  part %zu  %-14s %3d nodes x %d GPUs  ranks %d-%d  job %-8s %-8s %s\n", k,
                    p.at("cluster").get<std::string>().c_str(), p.at("nodes").get<int>(), p.at("gpus_per_node").get<int>(),
                    p.at("first_rank").get<int>(), p.at("first_rank").get<int>() + p.at("ranks").get<int>() - 1,
                    id ? std::to_string(id).c_str() : "-", state.c_str(), nodes.c_str());
    }
    if (j.contains("rendezvous") && !j.at("rendezvous").get<std::string>().empty()) {
        std::printf("  rendezvous %s (MASTER_ADDR:MASTER_PORT in every part)\n", j.at("rendezvous").get<std::string>().c_str());
    }
    if (!j.at("reason").get<std::string>().empty()) std::printf("  reason: %s\n", j.at("reason").get<std::string>().c_str());
    // Each run: its layout, where it ran, and why it ended (a job requeued after a failure has several).
    for (const auto& r : j.value("runs", nlohmann::json::array())) {
        const int64_t ended = r.at("ended_at").get<int64_t>();
        std::printf("  run %d  %s on %s  from %s  %s%s\n", r.at("number").get<int>(), r.at("layout").get<std::string>().c_str(),
                    r.at("placement").get<std::string>().c_str(), when(r.at("started_at").get<int64_t>()).c_str(),
                    ended == 0 ? "running" : ("until " + when(ended)).c_str(),
                    ended == 0 ? "" : (": " + r.at("end").get<std::string>()).c_str());
    }
    if (j.value("state", "") == "queued" && j.value("replan_at", int64_t{0}) != 0) {
        std::printf("  run %d: planned anew at %s, without what failed\n", j.value("run", 0), when(j.at("replan_at").get<int64_t>()).c_str());
    }
    for (const auto& d : j.value("degraded_links", nlohmann::json::array()))
        std::printf("  link %s <-> %s measured %.3g Gbps at %s by %s: below the %.3g Gbps the job was planned on\n",
                    d.at("a").get<std::string>().c_str(), d.at("b").get<std::string>().c_str(), d.at("measured_gbps").get<double>(),
                    when(d.at("measured_at").get<int64_t>()).c_str(), d.at("source").get<std::string>().c_str(),
                    d.at("planned_gbps").get<double>());
    if (history) {
        for (const auto& e : j.at("events")) {
            std::printf("  %s  %s\n", when(e.at("at").get<int64_t>()).c_str(), e.at("text").get<std::string>().c_str());
        }
    }
}

int run_jobs(const std::vector<std::string>& args) {
    Options o;
    if (!parse(args, "jobs", kJobsUsage, kJobsFooter, true, o)) return kExitOk;
    try {
        const BrokerClient client(broker_endpoint(o.url, o.token_file, o.ca));
        nlohmann::json answer = nlohmann::json::parse(client.get(o.id.empty() ? "/v1/xjobs" : "/v1/xjobs/" + o.id));
        if (o.id.empty()) flag_degraded_links(answer.at("xjobs"), client);
        else {
            nlohmann::json one = nlohmann::json::array({answer});
            flag_degraded_links(one, client);
            answer = one[0];
        }
        if (o.format == "json") {
            std::cout << answer.dump(2) << "\n";
            return kExitOk;
        }
        if (!o.id.empty()) {
            print_job(answer, true);
            return kExitOk;
        }
        if (answer.at("xjobs").empty()) std::printf("no cross-site jobs\n");
        for (const auto& j : answer.at("xjobs")) print_job(j, false);
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
        nlohmann::json body = nlohmann::json::object();
        if (!o.reason.empty()) body["reason"] = o.reason;
        const nlohmann::json answer = nlohmann::json::parse(client.post("/v1/xjobs/" + o.id + "/cancel", body.dump()));
        std::printf("%s: %s; every part is being ended\n", o.id.c_str(), answer.at("state").get<std::string>().c_str());
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
