// The broker's HTTP API (doc/broker-api.md) on cpp-httplib: routes, authentication, limits and
// the single lock that puts every write in one total order (state change, then durable store
// write, then the answer).
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "federation/brokerd/broker_store.h"
#include "federation/brokerd/federation_state.h"
#include "federation/brokerd/metrics.h"
#include "federation/brokerd/rate_limit.h"
#include "federation/brokerd/tokens.h"

namespace httplib {
class Server;
struct Request;
struct Response;
}  // namespace httplib

namespace spiderflow::broker {

constexpr int kApiVersion = 1;

class BrokerService {
public:
    // Restores the state from the store (every part it holds, and the epoch).
    BrokerService(std::shared_ptr<const Topology> topology, std::unique_ptr<BrokerStore> store, TokenTable tokens,
                  double rate_per_s);

    // Adds the routes to `server`.
    void install(httplib::Server& server);

    uint64_t epoch() const;

private:
    using Handler = void (BrokerService::*)(const httplib::Request&, httplib::Response&, const Caller&);
    // Authenticates (401), rate-limits (429), runs `handler`, and records the request.
    void serve(const char* route, const httplib::Request& req, httplib::Response& res, Handler handler);
    void get_federation(const httplib::Request&, httplib::Response&, const Caller&);
    void get_clusters(const httplib::Request&, httplib::Response&, const Caller&);
    void get_metrics(const httplib::Request&, httplib::Response&, const Caller&);
    void put_inventory(const httplib::Request&, httplib::Response&, const Caller&);
    void post_deltas(const httplib::Request&, httplib::Response&, const Caller&);
    // 403/404 unless `caller` may write cluster `name`; true when it may.
    bool may_write(const std::string& name, const Caller& caller, httplib::Response& res) const;
    // After a change: the part and epoch to the store, durably; the change is undone if that fails.
    void persist(const std::string& cluster, int64_t now);

    mutable std::mutex mu_;
    FederationState state_;
    std::unique_ptr<BrokerStore> store_;
    TokenTable tokens_;
    RateLimiter limiter_;
    Metrics metrics_;
};

}  // namespace spiderflow::broker
