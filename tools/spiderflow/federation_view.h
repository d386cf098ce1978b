// The live federation from a broker (GET /v1/federation): its topology and merged site state,
// for `spiderflow federation` and `spiderflow plan --broker`.
#pragma once

#include <memory>
#include <string>

#include "services/broker_client/broker_client.h"
#include "common/site/site_state.h"

namespace spiderflow::cli {

struct FederationView {
    std::shared_ptr<const Topology> topology;
    std::unique_ptr<SiteState> state;
    uint64_t epoch = 0;
};

// --broker URL with --token-file FILE (and --ca FILE): the endpoint, the token read from a file
// only its owner may read. Throws BrokerError.
BrokerEndpoint broker_endpoint(const std::string& url, const std::string& token_file, const std::string& ca_file);
// Throws BrokerError (unreachable, refused) or InputError (an answer that is not a federation).
FederationView fetch_federation(const BrokerClient& client);

}  // namespace spiderflow::cli
