// `spiderflow federation`: the live federation as a broker sees it, per cluster.
#include <cstdio>
#include <ctime>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/util/errors.h"
#include "common/util/cli_options.h"
#include "services/broker_client/broker_api_types.h"
#include "tools/spiderflow/command.h"
#include "tools/spiderflow/federation_view.h"

namespace spiderflow::cli {
namespace {

constexpr const char* kUsage =
    "usage: spiderflow federation --broker URL [--token-file FILE] [--ca FILE] [--format text|json]\n\n"
    "Shows the federation as its broker sees it (doc/broker-api.md): per cluster whether and when\n"
    "it last published, its free GPUs per GPU type, drained and down nodes, and each\n"
    "inter-cluster link's declared figure beside the one the planner uses (a measurement, with its\n"
    "age, while recent).\n\n";

constexpr const char* kFooter = "\nExit status: 0 shown, 2 bad options, 3 the broker could not be reached or refused.\n";

[[noreturn]] void usage_error(const std::string& field, const std::string& what) {
    throw InputError("spiderflow federation", 0, field, what);
}

int run_federation(const std::vector<std::string>& args) {
    std::string url, token_file, ca, format = "text";
    OptionTable t("spiderflow federation", kUsage, kFooter, 21);
    t.value("--broker", "URL", "the broker, e.g. https://broker.example.org:8760", store(&url));
    t.value("--token-file", "FILE", "a reader's (or a cluster's) token, in a file only you can read", store(&token_file));
    t.value("--ca", "FILE", "the CA certificate that signs the broker's certificate", store(&ca));
    t.value("--format", "FMT", "text (default) or json", one_of(&format, {"text", "json"}));
    if (!t.parse_or_help(args, 1, std::cout)) return kExitOk;
    if (url.empty()) usage_error("--broker", "is required");
    try {
        const BrokerClient client(broker_endpoint(url, token_file, ca));
        const broker_api::Clusters clusters = broker_api::clusters_from_text(client.get("/v1/clusters"), url + "/v1/clusters");
        const FederationView fed = fetch_federation(client);
        const Topology& t = *fed.topology;
        const SiteTime now = static_cast<SiteTime>(std::time(nullptr));
        nlohmann::json out = {{"epoch", fed.epoch}, {"clusters", nlohmann::json::array()}, {"links", nlohmann::json::array()}};
        for (size_t c = 0; c < t.clusters.size(); ++c) {
            std::map<std::string, int> free_by_type;
            int drained = 0, down = 0;
            for (size_t n = 0; n < t.clusters[c].nodes.size(); ++n) {
                const NodeRef ref{static_cast<int>(c), static_cast<int>(n)};
                free_by_type[t.clusters[c].nodes[n].gpu_type] += fed.state->free_gpus(ref, now);
                drained += fed.state->use(ref).state == NodeState::drained;
                down += fed.state->use(ref).state == NodeState::down;
            }
            nlohmann::json entry = {{"name", t.clusters[c].name}, {"free_gpus", free_by_type}, {"drained_nodes", drained},
                                    {"down_nodes", down}, {"published", false}};
            for (const broker_api::ClusterSummary& b : clusters.clusters) {
                if (b.name != t.clusters[c].name) continue;
                entry["published"] = b.published();
                if (b.published()) entry["age_s"] = b.age_s;
            }
            out["clusters"].push_back(entry);
        }
        for (size_t l = 0; l < t.links.size(); ++l) {
            const auto fig = fed.state->effective_link(t.links[l].a, t.links[l].b);
            if (!fig) continue;
            nlohmann::json link = {{"a", t.clusters[static_cast<size_t>(t.links[l].a)].name},
                                   {"b", t.clusters[static_cast<size_t>(t.links[l].b)].name},
                                   {"gbps", fig->bandwidth_Bps * 8 / 1e9}, {"latency_ms", fig->latency_s * 1e3},
                                   {"declared_gbps", t.links[l].bandwidth_Bps * 8 / 1e9},
                                   {"declared_latency_ms", t.links[l].latency_s * 1e3},
                                   {"measured", fig->measured}};
            if (fig->measured) {
                link["source"] = fig->source;
                link["measured_at"] = fig->timestamp;
                link["age_s"] = now - fig->timestamp;
            }
            out["links"].push_back(link);
        }
        if (format == "json") {
            std::cout << out.dump(2) << "\n";
            return kExitOk;
        }
        std::printf("federation at %s, epoch %llu\n\n", url.c_str(), static_cast<unsigned long long>(fed.epoch));
        std::printf("%-16s %-10s %-28s %s\n", "cluster", "updated", "free GPUs", "nodes out");
        for (const auto& c : out["clusters"]) {
            std::string free;
            for (const auto& [type, n] : c.at("free_gpus").items()) free += (free.empty() ? "" : ", ") + std::to_string(n.get<int>()) + " " + type;
            const std::string age = c.at("published") ? std::to_string(c.at("age_s").get<long long>()) + " s ago" : "never";
            std::printf("%-16s %-10s %-28s %d drained, %d down\n", c.at("name").get<std::string>().c_str(), age.c_str(),
                        free.c_str(), c.at("drained_nodes").get<int>(), c.at("down_nodes").get<int>());
        }
        // What the planner uses beside what the topology declares: a measured figure well below
        // the declared one is a link to look at.
        std::printf("\n%-28s %-20s %-20s %s\n", "link", "declared", "in use", "figure");
        for (const auto& l : out["links"]) {
            const std::string name = l.at("a").get<std::string>() + " <-> " + l.at("b").get<std::string>();
            char declared[40], used[40];
            std::snprintf(declared, sizeof declared, "%.3g Gbps %.3g ms", l.at("declared_gbps").get<double>(),
                          l.at("declared_latency_ms").get<double>());
            std::snprintf(used, sizeof used, "%.3g Gbps %.3g ms", l.at("gbps").get<double>(), l.at("latency_ms").get<double>());
            const std::string figure = l.at("measured") ? "measured by " + l.at("source").get<std::string>() + ", " +
                                                              std::to_string(l.at("age_s").get<long long>()) + " s ago"
                                                        : "declared";
            std::printf("%-28s %-20s %-20s %s\n", name.c_str(), declared, used, figure.c_str());
        }
        return kExitOk;
    } catch (const BrokerError& e) {
        std::cerr << "spiderflow: federation: " << e.what() << "\n";
        return 3;
    }
}

const Registration reg{"federation", "the live federation from its broker: clusters, free GPUs, links", &run_federation};

}  // namespace
}  // namespace spiderflow::cli
