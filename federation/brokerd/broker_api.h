// The broker's HTTP API (doc/broker-api.md) on cpp-httplib: routes, authentication, limits and
// the single lock that puts every write in one total order (state change, then durable store
// write, then the answer).
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "federation/brokerd/broker_store.h"
#include "federation/brokerd/federation_state.h"
#include "federation/brokerd/lease_keeper.h"
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

    ~BrokerService();

    // Adds the routes to `server`.
    void install(httplib::Server& server);

    // On a shared store: from now on this broker writes only while it holds the lease, kept
    // through `lease_store` (a second connection to the same database). Until it holds it, it
    // is a standby: reads are served from the store's latest state, writes get 503.
    void keep_lease(std::unique_ptr<BrokerStore> lease_store, const std::string& holder, int ttl_s);
    // Gives the lease up (a clean stop).
    void release_lease();

    uint64_t epoch() const;
    bool active() const { return writable_; }

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
    // False, with 503 and Retry-After, while this broker is a standby. Under mu_.
    bool may_decide(httplib::Response& res) const;
    // After a change: the part and epoch to the store, durably. The change is undone if that
    // fails: false with a 503 in `res` when the lease was lost, an exception otherwise.
    bool persist(const std::string& cluster, int64_t now, FederationState::Undo before, httplib::Response& res);
    // The state as the store holds it (start, takeover, a standby following). Under mu_.
    void reload_from_store();

    mutable std::mutex mu_;
    FederationState state_;
    std::unique_ptr<BrokerStore> store_;
    TokenTable tokens_;
    RateLimiter limiter_;
    Metrics metrics_;
    std::atomic<bool> writable_{true};
    std::string holder_;        // this broker in the lease row; empty without a lease
    std::string leader_;        // who holds the lease, as a standby last saw it (under mu_)
    std::unique_ptr<LeaseKeeper> keeper_;
};

}  // namespace spiderflow::broker
