#include "tools/spiderflow/federation_view.h"

#include "common/site/site_json.h"
#include "common/topology/spiderflow_reader.h"
#include "services/broker_client/broker_api_types.h"

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
    const broker_api::Federation f = broker_api::federation_from_text(client.get("/v1/federation"), source);
    FederationView v;
    v.topology = std::make_shared<const Topology>(parse_spiderflow_topology(f.topology.dump(), source + " topology"));
    v.state = std::make_unique<SiteState>(site_state_from_json(f.state.dump(), v.topology, source + " state"));
    v.epoch = v.state->epoch();
    return v;
}

}  // namespace spiderflow::cli
