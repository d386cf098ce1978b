// `spiderflow jobs` and `spiderflow cancel`: the federation's cross-site jobs as its broker holds
// them (doc/broker-api.md, "Cross-site jobs"), and ending one.
#include <cstdio>
#include <ctime>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "libspiderflow/util/errors.h"
#include "tools/spiderflow/command.h"
#include "tools/spiderflow/federation_view.h"

namespace spiderflow::cli {
namespace {

constexpr const char* kJobsHelp =
    "usage: spiderflow jobs --broker URL [--token-file FILE] [--ca FILE] [--format text|json] [ID]\n\n"
    "Lists the cross-site jobs the broker holds: each job's state, its parts with their clusters,\n"
    "nodes, ranks and Slurm job ids, the common start, and why a job failed. With ID, that job\n"
    "alone with its history.\n\n"
    "  --broker URL       the broker (several, comma-separated, for brokers sharing MariaDB)\n"
    "  --token-file FILE  a reader's (or a cluster's) token, in a file only you can read\n"
    "  --ca FILE          the CA certificate that signs the broker's certificate\n"
    "  --format FMT       text (default) or json\n\n"
    "Exit status: 0 shown, 2 bad options, 3 the broker could not be reached or refused.\n";

constexpr const char* kCancelHelp =
    "usage: spiderflow cancel --broker URL --token-file FILE [--ca FILE] [--reason TEXT] ID\n\n"
    "Ends every part of cross-site job ID (and removes their reservations). Needs the token of a\n"
    "cluster that holds a part of the job (an admin's tool). A user ends a cross-site job with\n"
    "scancel of its part on any cluster: the other parts end with it.\n\n"
    "Exit status: 0 cancelled, 2 bad options, 3 the broker could not be reached or refused.\n";

struct Options {
    std::string url, token_file, ca, format = "text", reason, id;
};

Options parse(const std::vector<std::string>& args, const char* command, const char* help, bool* helped) {
    Options o;
    auto bad = [&](const std::string& field, const std::string& what) {
        throw InputError(std::string("spiderflow ") + command, 0, field, what);
    };
    for (size_t i = 1; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--help" || a == "-h") {
            std::cout << help;
            *helped = true;
            return o;
        }
        auto value = [&]() -> const std::string& {
            if (i + 1 >= args.size()) bad(a, "needs a value");
            return args[++i];
        };
        if (a == "--broker") o.url = value();
        else if (a == "--token-file") o.token_file = value();
        else if (a == "--ca") o.ca = value();
        else if (a == "--format") o.format = value();
        else if (a == "--reason") o.reason = value();
        else if (!a.empty() && a[0] != '-' && o.id.empty()) o.id = a;
        else bad(a, std::string("unknown option (see 'spiderflow ") + command + " --help')");
    }
    if (o.url.empty()) bad("--broker", "is required");
    if (o.format != "text" && o.format != "json") bad("--format", "must be text or json");
    return o;
}

std::string when(int64_t t) {
    if (t <= 0) return "-";
    char buf[32];
    const std::time_t tt = static_cast<std::time_t>(t);
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", std::localtime(&tt));
    return buf;
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
    if (history) {
        for (const auto& e : j.at("events")) {
            std::printf("  %s  %s\n", when(e.at("at").get<int64_t>()).c_str(), e.at("text").get<std::string>().c_str());
        }
    }
}

int run_jobs(const std::vector<std::string>& args) {
    bool helped = false;
    const Options o = parse(args, "jobs", kJobsHelp, &helped);
    if (helped) return kExitOk;
    try {
        const BrokerClient client(broker_endpoint(o.url, o.token_file, o.ca));
        const nlohmann::json answer = nlohmann::json::parse(client.get(o.id.empty() ? "/v1/xjobs" : "/v1/xjobs/" + o.id));
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
    bool helped = false;
    const Options o = parse(args, "cancel", kCancelHelp, &helped);
    if (helped) return kExitOk;
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
