// `spiderflow federation`: the live federation as a broker sees it, per cluster.
#include <ctime>
#include <iostream>
#include <string>
#include <vector>

#include "common/util/errors.h"
#include "common/util/cli_options.h"
#include "services/broker_client/broker_api_types.h"
#include "tools/spiderflow/command.h"
#include "tools/spiderflow/federation_report.h"
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
        const FederationReport report =
            federation_report(*fed.topology, *fed.state, fed.epoch, clusters, static_cast<SiteTime>(std::time(nullptr)));
        if (format == "json")
            std::cout << report_to_json(report).dump(2) << "\n";
        else
            std::cout << report_to_text(report, url);
        return kExitOk;
    } catch (const BrokerError& e) {
        std::cerr << "spiderflow: federation: " << e.what() << "\n";
        return 3;
    }
}

const Registration reg{"federation", "the live federation from its broker: clusters, free GPUs, links", &run_federation};

}  // namespace
}  // namespace spiderflow::cli
