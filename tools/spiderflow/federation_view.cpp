#include "tools/spiderflow/federation_view.h"

#include <nlohmann/json.hpp>

#include "common/site/site_json.h"
#include "common/topology/spiderflow_reader.h"
#include "common/util/errors.h"
#include "common/util/json_read.h"

namespace spiderflow::cli {

BrokerEndpoint broker_endpoint(const std::string& url, const std::string& token_file, const std::string& ca_file) {
    BrokerEndpoint e;
    e.url = url;
    if (!token_file.empty()) e.token = read_token_file(token_file);
    e.ca_file = ca_file;
    return e;
}

FederationView fetch_federation(const BrokerClient& client) {
    const std::string source = client.endpoint().url + "/v1/federation";
    const nlohmann::json j = jsonread::parse(client.get("/v1/federation"), source);
    jsonread::only_keys(j, {"api_version", "epoch", "topology", "state"}, source, "");
    for (const char* key : {"api_version", "epoch", "topology", "state"}) {
        if (!j.contains(key)) throw InputError(source, 0, key, "missing: is this a SpiderFlow broker?");
    }
    if (j.at("api_version") != 1) throw InputError(source, 0, "api_version", "this spiderflow speaks broker API version 1");
    FederationView v;
    v.topology = std::make_shared<const Topology>(parse_spiderflow_topology(j.at("topology").dump(), source + " topology"));
    v.state = std::make_unique<SiteState>(site_state_from_json(j.at("state").dump(), v.topology, source + " state"));
    v.epoch = v.state->epoch();
    return v;
}

}  // namespace spiderflow::cli
