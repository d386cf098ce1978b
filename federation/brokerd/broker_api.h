// The broker's HTTP API (doc/broker-api.md) on cpp-httplib: routes, authentication, limits and
// the single lock that puts every write in one total order (state change and its place in the
// commit queue under the lock, then the durable store write, batched with others, then the
// answer).
#pragma once

#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "services/broker/broker_store.h"
#include "services/broker/cross_site_jobs.h"
#include "services/broker/federation_state.h"
#include "services/broker/group_commit.h"
#include "services/broker/lease_keeper.h"
#include "services/broker/metrics.h"
#include "services/broker/probe_board.h"
#include "services/broker/rate_limit.h"
#include "services/broker/tokens.h"

namespace httplib {
class Server;
struct Request;
struct Response;
}  // namespace httplib

namespace spiderflow::broker {

class BrokerService {
public:
    // Restores the state from the store (every part it holds, and the epoch).
    // Also starts the co-allocator's decision round, once a second while this broker decides.
    BrokerService(std::shared_ptr<const Topology> topology, std::unique_ptr<BrokerStore> store, TokenTable tokens,
                  double rate_per_s, coalloc::Policy policy = {}, int probe_port = 5301);

    ~BrokerService();

    // Adds the routes to `server`.
    void install(httplib::Server& server);
    // The page is served over TLS (brokerd.conf tls_cert): the status page's cookie is Secure.
    void set_tls(bool tls) { tls_ = tls; }

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
    // Authenticates (401), rate-limits (429), runs `handler`, and records the request. The token
    // is the bearer header's unless `token` names another (the status page's cookie).
    void serve(const char* route, const httplib::Request& req, httplib::Response& res, Handler handler,
               const std::string* token = nullptr);
    void get_federation(const httplib::Request&, httplib::Response&, const Caller&);
    void get_federation_deltas(const httplib::Request&, httplib::Response&, const Caller&);
    void get_clusters(const httplib::Request&, httplib::Response&, const Caller&);
    void get_metrics(const httplib::Request&, httplib::Response&, const Caller&);
    void put_inventory(const httplib::Request&, httplib::Response&, const Caller&);
    void post_deltas(const httplib::Request&, httplib::Response&, const Caller&);
    // Cross-site jobs (xjob_routes.cpp).
    void post_xjob(const httplib::Request&, httplib::Response&, const Caller&);
    void get_xjobs(const httplib::Request&, httplib::Response&, const Caller&);
    void get_xjob(const httplib::Request&, httplib::Response&, const Caller&);
    void post_xjob_cancel(const httplib::Request&, httplib::Response&, const Caller&);
    void get_orders(const httplib::Request&, httplib::Response&, const Caller&);
    void post_reports(const httplib::Request&, httplib::Response&, const Caller&);
    // The status page for people (status_routes.cpp).
    void install_status(httplib::Server& server);
    void get_status(const httplib::Request&, httplib::Response&, const Caller&);
    // Link probes (probe_routes.cpp).
    void post_probe(const httplib::Request&, httplib::Response&, const Caller&);
    void get_probes(const httplib::Request&, httplib::Response&, const Caller&);
    void get_probe(const httplib::Request&, httplib::Response&, const Caller&);
    void get_probe_orders(const httplib::Request&, httplib::Response&, const Caller&);
    void post_probe_reports(const httplib::Request&, httplib::Response&, const Caller&);
    // The co-allocator's time-driven decisions, once a second while this broker decides.
    void decide_loop();
    void decide_once();
    // When each cluster was last heard from: its agent's last publish or call, and never before
    // this broker began deciding (a restarted broker gives every cluster the full grace). Under mu_.
    std::map<std::string, int64_t> last_seen() const;
    // After a write the lease fence refused: standby from now on, with the 503. Under mu_.
    void lost_lease(const LeaseLost& e, httplib::Response* res);
    // 403/404 unless `caller` may write cluster `name`; true when it may.
    bool may_write(const std::string& name, const Caller& caller, httplib::Response& res) const;
    // False, with 503 and Retry-After, while this broker is a standby. Under mu_.
    bool may_decide(httplib::Response& res) const;
    // After a change (queued under mu_ as `ticket`), outside mu_: returns once the change is
    // durable. When its batch failed the state was reloaded from the store (rolled_back): false
    // with a 503 in `res` when the lease was lost, the store's exception otherwise.
    bool durable(uint64_t ticket, httplib::Response& res);
    void rolled_back(std::exception_ptr why);
    // The state as the store holds it (start, takeover, the store gone back). Under mu_.
    void reload_from_store();
    // A standby: only the parts written since its epoch, from the store. Under mu_.
    void follow_store();

    // The whole federation view as served: built once per epoch by one reader, outside mu_,
    // and shared by every reader that asks meanwhile (a view takes tens of milliseconds to write
    // at 1,024 clusters, and the epoch moves with every write).
    struct View {
        uint64_t epoch = 0;
        uint64_t incarnation = 0;
        std::shared_ptr<const std::string> body;
    };
    // A view at least as new as `epoch` of this incarnation of the state.
    View view_since(uint64_t epoch, uint64_t incarnation);
    // The view's ETag: its epoch and this state's incarnation (a reload from the store starts a
    // new one, since an epoch may then name another state).
    std::string etag(uint64_t epoch, uint64_t incarnation) const;

    mutable std::mutex mu_;
    FederationState state_;
    uint64_t incarnation_ = 0;                 // under mu_: moves with every reload from the store
    const std::string instance_;               // this process, in ETags
    std::string topology_text_;                // the topology's JSON, written once
    std::mutex view_mu_;                       // guards view_
    View view_;
    std::mutex view_build_mu_;                 // one view being written at a time
    std::unique_ptr<BrokerStore> store_;       // one call at a time (SerializedStore)
    GroupCommit commits_;
    TokenTable tokens_;
    RateLimiter limiter_;
    Metrics metrics_;
    std::atomic<bool> writable_{true};
    bool tls_ = false;
    std::string holder_;        // this broker in the lease row; empty without a lease
    std::string leader_;        // who holds the lease, as a standby last saw it (under mu_)
    std::unique_ptr<LeaseKeeper> keeper_;
    CrossSiteJobs xjobs_;                      // under mu_
    ProbeBoard probes_;                        // under mu_
    std::map<std::string, int64_t> seen_;      // a cluster's last call with its token (under mu_)
    int64_t deciding_since_ = 0;               // under mu_
    std::mutex decider_mu_;
    std::condition_variable decider_wake_;
    bool stopping_ = false;                    // under decider_mu_
    std::thread decider_;
};

}  // namespace spiderflow::broker
