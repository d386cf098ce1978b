#include "federation/brokerd/broker_api.h"

#include "services/broker/replan.h"
#include "services/broker/serialized_store.h"

#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <iostream>
#include <random>

#include <nlohmann/json.hpp>

#include "common/site/site_json.h"
#include "common/topology/topology_json.h"
#include "common/util/errors.h"
#include "common/util/parse_number.h"
#include "services/broker/federation_figures.h"
#include "federation/brokerd/http_answer.h"
#include "services/broker_client/broker_api_types.h"

namespace spiderflow::broker {
namespace {

// Names this broker process in its ETags: another process (a restart, a standby) may hold
// another state under the same epoch.
std::string new_instance() {
    std::random_device rd;
    char hex[17];
    std::snprintf(hex, sizeof hex, "%08x%08x", rd(), rd());
    return hex;
}

}  // namespace

BrokerService::BrokerService(std::shared_ptr<const Topology> topology, std::unique_ptr<BrokerStore> store,
                             TokenTable tokens, double rate_per_s, coalloc::Policy policy, int probe_port)
    : state_(std::move(topology)),
      instance_(new_instance()),
      topology_text_(topology_to_json(state_.topology(), -1)),
      store_(std::make_unique<SerializedStore>(std::move(store))),
      commits_(*store_, [this](std::exception_ptr why) { rolled_back(why); }),
      tokens_(std::move(tokens)),
      limiter_(rate_per_s),
      xjobs_(*store_, policy),
      probes_(probe_port) {
    // Called under mu_, as every co-allocation decision is: the view cannot change meanwhile.
    xjobs_.set_replanner([this](coalloc::XJob& job) { return replan_xjob(job, state_.merged()); });
    reload_from_store();
    deciding_since_ = unix_now();
    decider_ = std::thread([this] { decide_loop(); });
}

BrokerService::~BrokerService() {
    {
        std::lock_guard<std::mutex> lock(decider_mu_);
        stopping_ = true;
    }
    decider_wake_.notify_all();
    if (decider_.joinable()) decider_.join();
    release_lease();
}

void BrokerService::reload_from_store() {
    FederationState fresh(state_.shared_topology());
    uint64_t epoch = 0;
    for (const StoredPart& p : store_->load_parts(0, &epoch)) {
        // A part stored over an older federation topology (a cluster added, a node renamed) is
        // dropped, not fatal: its cluster's next snapshot brings it back.
        try {
            fresh.replace_part(p.cluster, p.snapshot_json, p.updated_at);
        } catch (const InputError& e) {
            std::cerr << "spiderflow: brokerd: stored part of cluster '" << p.cluster
                      << "' dropped until it publishes again: " << e.what() << "\n";
        }
    }
    fresh.restore(epoch);
    state_ = std::move(fresh);
    ++incarnation_;
    xjobs_.reload();
}

void BrokerService::follow_store() {
    uint64_t epoch = 0;
    const std::vector<StoredPart> parts = store_->load_parts(state_.epoch(), &epoch);
    std::vector<std::string> dropped;
    state_.follow(parts, epoch, &dropped);
    for (const std::string& c : dropped) {
        std::cerr << "spiderflow: brokerd: standby: stored part of cluster '" << c << "' does not fit the topology; left out\n";
    }
}

void BrokerService::keep_lease(std::unique_ptr<BrokerStore> lease_store, const std::string& holder, int ttl_s) {
    holder_ = holder;
    writable_ = false;
    LeaseKeeper::Hooks hooks;
    hooks.became_active = [this] {
        std::lock_guard<std::mutex> lock(mu_);
        reload_from_store();  // the previous active broker's last writes
        deciding_since_ = unix_now();
        leader_ = holder_;
        writable_ = true;
    };
    hooks.became_standby = [this](const std::string& holder_now) {
        writable_ = false;
        std::lock_guard<std::mutex> lock(mu_);
        leader_ = holder_now;
    };
    hooks.follow = [this](uint64_t stored_epoch) {
        std::lock_guard<std::mutex> lock(mu_);
        if (writable_) return;
        if (stored_epoch < state_.epoch()) {
            reload_from_store();  // the store went back (restored from a backup): start again from it
            return;
        }
        if (stored_epoch != state_.epoch()) follow_store();
        if (xjobs_.stale()) xjobs_.reload();
    };
    keeper_ = std::make_unique<LeaseKeeper>(std::move(lease_store), holder, ttl_s, std::move(hooks));
    keeper_->start();
}

void BrokerService::release_lease() {
    writable_ = false;
    if (keeper_) keeper_->stop();
}

uint64_t BrokerService::epoch() const {
    std::lock_guard<std::mutex> lock(mu_);
    return state_.epoch();
}

void BrokerService::install(httplib::Server& server) {
    // The answers httplib gives by itself (no such route: 404, a request it cannot parse: 400, a
    // body over max_body: 413, a target too long: 414) have no body; every broker answer is JSON
    // with the reason, which clients print (the route fuzzer found the bare 404).
    server.set_error_handler(httplib::Server::HandlerWithResponse([](const httplib::Request& req, httplib::Response& res) {
        if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;  // a route's own refusal
        switch (res.status) {
        case 404: error(res, 404, "no route " + req.method + " " + req.path + " (doc/broker-api.md lists them)"); break;
        case 413: error(res, 413, "the body is larger than this broker takes (max_body)"); break;
        case 414: error(res, 414, "the request target is too long"); break;
        default:
            error(res, res.status,
                  res.status >= 500 ? "the broker failed on this request: " + res.get_header_value("EXCEPTION_WHAT")
                                    : "a request this broker cannot read (HTTP " + std::to_string(res.status) + ")");
            break;
        }
        return httplib::Server::HandlerResponse::Handled;
    }));
    server.Get("/healthz", [this](const httplib::Request&, httplib::Response& res) {
        // A load balancer in front of several brokers sends writes to the one saying "active".
        res.set_content(keeper_ == nullptr ? "ok\n" : writable_ ? "ok active\n" : "ok standby\n", "text/plain");
        metrics_.observe("/healthz", 200, 0);
    });
    server.Get("/metrics", [this](const httplib::Request& q, httplib::Response& r) {
        serve("/metrics", q, r, &BrokerService::get_metrics);
    });
    server.Get("/v1/federation", [this](const httplib::Request& q, httplib::Response& r) {
        serve("/v1/federation", q, r, &BrokerService::get_federation);
    });
    server.Get("/v1/federation/deltas", [this](const httplib::Request& q, httplib::Response& r) {
        serve("/v1/federation/deltas", q, r, &BrokerService::get_federation_deltas);
    });
    server.Get("/v1/clusters", [this](const httplib::Request& q, httplib::Response& r) {
        serve("/v1/clusters", q, r, &BrokerService::get_clusters);
    });
    server.Put(R"(/v1/clusters/([^/]+)/inventory)", [this](const httplib::Request& q, httplib::Response& r) {
        serve("/v1/clusters/{name}/inventory", q, r, &BrokerService::put_inventory);
    });
    server.Post(R"(/v1/clusters/([^/]+)/deltas)", [this](const httplib::Request& q, httplib::Response& r) {
        serve("/v1/clusters/{name}/deltas", q, r, &BrokerService::post_deltas);
    });
    server.Post("/v1/xjobs", [this](const httplib::Request& q, httplib::Response& r) {
        serve("/v1/xjobs", q, r, &BrokerService::post_xjob);
    });
    server.Get("/v1/xjobs", [this](const httplib::Request& q, httplib::Response& r) {
        serve("/v1/xjobs", q, r, &BrokerService::get_xjobs);
    });
    server.Get(R"(/v1/xjobs/([^/]+))", [this](const httplib::Request& q, httplib::Response& r) {
        serve("/v1/xjobs/{id}", q, r, &BrokerService::get_xjob);
    });
    server.Post(R"(/v1/xjobs/([^/]+)/cancel)", [this](const httplib::Request& q, httplib::Response& r) {
        serve("/v1/xjobs/{id}/cancel", q, r, &BrokerService::post_xjob_cancel);
    });
    server.Get(R"(/v1/clusters/([^/]+)/orders)", [this](const httplib::Request& q, httplib::Response& r) {
        serve("/v1/clusters/{name}/orders", q, r, &BrokerService::get_orders);
    });
    server.Post(R"(/v1/clusters/([^/]+)/reports)", [this](const httplib::Request& q, httplib::Response& r) {
        serve("/v1/clusters/{name}/reports", q, r, &BrokerService::post_reports);
    });
    server.Post("/v1/probes", [this](const httplib::Request& q, httplib::Response& r) {
        serve("/v1/probes", q, r, &BrokerService::post_probe);
    });
    server.Get("/v1/probes", [this](const httplib::Request& q, httplib::Response& r) {
        serve("/v1/probes", q, r, &BrokerService::get_probes);
    });
    server.Get(R"(/v1/probes/([^/]+))", [this](const httplib::Request& q, httplib::Response& r) {
        serve("/v1/probes/{id}", q, r, &BrokerService::get_probe);
    });
    server.Get(R"(/v1/clusters/([^/]+)/probes)", [this](const httplib::Request& q, httplib::Response& r) {
        serve("/v1/clusters/{name}/probes", q, r, &BrokerService::get_probe_orders);
    });
    server.Post(R"(/v1/clusters/([^/]+)/probes)", [this](const httplib::Request& q, httplib::Response& r) {
        serve("/v1/clusters/{name}/probes", q, r, &BrokerService::post_probe_reports);
    });
    install_status(server);
}

void BrokerService::serve(const char* route, const httplib::Request& req, httplib::Response& res, Handler handler,
                          const std::string* token) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::optional<Caller> caller = tokens_.find(token != nullptr ? *token : bearer_token(req));
    if (caller && caller->role == Caller::Role::cluster) {
        // Any call with a cluster's token is word from its agent (it reads the federation every
        // cycle, publishes only on change or heartbeat): what `spiderflow federation` shows as
        // last heard, and what the co-allocator's silence is measured from.
        std::lock_guard<std::mutex> lock(mu_);
        seen_[caller->name] = unix_now();
    }
    if (!caller) {
        error(res, 401, "a valid token is required (Authorization: Bearer TOKEN)");
    } else if (!limiter_.allow(caller->name)) {
        error(res, 429, "too many requests from '" + caller->name + "'");
    } else {
        try {
            (this->*handler)(req, res, *caller);
        } catch (const InputError& e) {
            error(res, 400, e.what());
        } catch (const std::exception& e) {
            error(res, 500, e.what());
        }
    }
    metrics_.observe(route, res.status, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}

std::string BrokerService::etag(uint64_t epoch, uint64_t incarnation) const {
    return "\"" + instance_ + "." + std::to_string(incarnation) + "." + std::to_string(epoch) + "\"";
}

BrokerService::View BrokerService::view_since(uint64_t epoch, uint64_t incarnation) {
    auto fresh = [&](const View& v) { return v.body && v.incarnation == incarnation && v.epoch >= epoch; };
    {
        std::lock_guard<std::mutex> lock(view_mu_);
        if (fresh(view_)) return view_;
    }
    // Readers that come while a view is being written wait for it rather than write their own.
    std::lock_guard<std::mutex> building(view_build_mu_);
    {
        std::lock_guard<std::mutex> lock(view_mu_);
        if (fresh(view_)) return view_;
    }
    View v;
    std::shared_ptr<const SiteState> merged;
    {
        std::lock_guard<std::mutex> lock(mu_);
        merged = state_.merged_snapshot();
        v.epoch = state_.epoch();
        v.incarnation = incarnation_;
    }
    v.body = std::make_shared<const std::string>(
        broker_api::federation_to_text(v.epoch, topology_text_, site_state_to_json(*merged, -1)));
    std::lock_guard<std::mutex> lock(view_mu_);
    if (!view_.body || view_.incarnation != v.incarnation || view_.epoch < v.epoch) view_ = v;
    return v;
}

void BrokerService::get_federation(const httplib::Request& req, httplib::Response& res, const Caller&) {
    uint64_t epoch = 0, incarnation = 0;
    {
        std::lock_guard<std::mutex> lock(mu_);
        epoch = state_.epoch();
        incarnation = incarnation_;
    }
    const std::string tag = etag(epoch, incarnation);
    if (req.get_header_value("If-None-Match") == tag) {
        res.status = 304;  // the reader's copy is current: no body
        res.set_header("ETag", tag);
        return;
    }
    const View v = view_since(epoch, incarnation);
    res.status = 200;
    res.set_header("ETag", etag(v.epoch, v.incarnation));
    res.set_content(*v.body, "application/json");
}

void BrokerService::get_federation_deltas(const httplib::Request& req, httplib::Response& res, const Caller&) {
    const std::string text = req.get_param_value("since");
    const std::optional<int64_t> since = to_int<int64_t>(text, 0);
    if (!since) throw InputError("the request", 0, "since", "needs the epoch of the reader's copy (?since=EPOCH), not '" + text + "'");
    broker_api::FederationDeltas d;
    d.since = static_cast<uint64_t>(*since);
    {
        std::lock_guard<std::mutex> lock(mu_);
        d.epoch = state_.epoch();
        std::optional<std::vector<SiteDelta>> changes = state_.changes_since(d.since);
        if (!changes) {
            error(res, 410, "this broker cannot say what changed since epoch " + text + " (it is at epoch " +
                                std::to_string(d.epoch) + "): read /v1/federation");
            return;
        }
        d.deltas = std::move(*changes);
    }
    res.status = 200;
    res.set_content(broker_api::federation_deltas_to_text(d), "application/json");
}

void BrokerService::get_clusters(const httplib::Request&, httplib::Response& res, const Caller&) {
    const int64_t now = unix_now();
    std::lock_guard<std::mutex> lock(mu_);
    const SiteState& merged = state_.merged();
    const Topology& t = state_.topology();
    broker_api::Clusters answered;
    answered.epoch = state_.epoch();
    for (size_t c = 0; c < t.clusters.size(); ++c) {
        broker_api::ClusterSummary s;
        s.name = t.clusters[c].name;
        s.nodes = static_cast<int>(t.clusters[c].nodes.size());
        for (const auto& n : t.clusters[c].nodes) s.gpus += n.gpus;
        s.free_gpus = merged.free_gpus(static_cast<int>(c), now);
        s.updated_at = std::max<int64_t>(state_.updated_at(s.name), 0);
        s.age_s = now - s.updated_at;
        if (const auto heard = seen_.find(s.name); heard != seen_.end()) s.contact_at = std::max(heard->second, s.updated_at);
        answered.clusters.push_back(std::move(s));
    }
    answer(res, 200, broker_api::clusters_to_json(answered));
}

void BrokerService::get_metrics(const httplib::Request&, httplib::Response& res, const Caller&) {
    const int64_t now = unix_now();
    FederationFigures figures;
    {
        std::lock_guard<std::mutex> lock(mu_);
        figures = federation_figures(state_, xjobs_.jobs(), now);
    }
    figures.active = writable_;
    res.status = 200;
    res.set_content(metrics_.render(figures, now), "text/plain; version=0.0.4; charset=utf-8");
}

bool BrokerService::may_write(const std::string& name, const Caller& caller, httplib::Response& res) const {
    if (!state_.has_cluster(name)) {
        error(res, 404, "no cluster '" + name + "' in the federation topology");
        return false;
    }
    if (caller.role != Caller::Role::cluster || caller.name != name) {
        error(res, 403, "'" + caller.name + "' may not write cluster '" + name + "'");
        return false;
    }
    return true;
}

bool BrokerService::may_decide(httplib::Response& res) const {
    if (writable_) return true;
    res.set_header("Retry-After", "1");
    error(res, 503,
          "this broker is a standby and serves reads only; write to the active broker" +
              (leader_.empty() ? std::string() : " (" + leader_ + ")"));
    return false;
}

void BrokerService::lost_lease(const LeaseLost& e, httplib::Response* res) {
    writable_ = false;
    leader_ = e.holder();
    if (keeper_) keeper_->lost();
    std::cerr << "spiderflow: brokerd: standby: " << e.what() << "\n";
    if (res != nullptr) may_decide(*res);  // the 503
}

bool BrokerService::durable(uint64_t ticket, httplib::Response& res) {
    try {
        commits_.wait(ticket);
        return true;
    } catch (const LeaseLost& e) {
        std::lock_guard<std::mutex> lock(mu_);
        lost_lease(e, &res);
        return false;
    }
}

// The store refused a batch: the state in memory holds writes it does not, and those queued
// since. Under mu_, so nothing is queued meanwhile: they fail, and the state is the store's again.
void BrokerService::rolled_back(std::exception_ptr why) {
    std::lock_guard<std::mutex> lock(mu_);
    commits_.fail_queued(why);
    try {
        reload_from_store();
    } catch (const std::exception& e) {
        std::cerr << "spiderflow: brokerd: cannot reload the state after a failed write: " << e.what() << "\n";
    }
}

void BrokerService::put_inventory(const httplib::Request& req, httplib::Response& res, const Caller& caller) {
    const std::string name = req.matches[1];
    uint64_t ticket = 0, epoch = 0;
    {
        std::lock_guard<std::mutex> lock(mu_);
        if (!may_write(name, caller, res) || !may_decide(res)) return;
        const int64_t now = unix_now();
        state_.replace_part(name, req.body, now);
        epoch = state_.epoch();
        ticket = commits_.enqueue({name, state_.part_json(name), now, epoch}, holder_);
    }
    if (durable(ticket, res)) answer(res, 200, broker_api::inventory_answer_to_json(epoch));
}

void BrokerService::post_deltas(const httplib::Request& req, httplib::Response& res, const Caller& caller) {
    const std::string name = req.matches[1];
    const std::string source = "deltas of " + name;
    if (!may_write(name, caller, res)) return;  // the topology and the caller: no lock needed
    const std::vector<SiteDelta> deltas = broker_api::deltas_from_text(req.body, source);
    uint64_t ticket = 0, epoch = 0;
    {
        std::lock_guard<std::mutex> lock(mu_);
        if (!may_decide(res)) return;
        const int64_t now = unix_now();
        state_.apply_deltas(name, deltas, now);
        epoch = state_.epoch();
        ticket = commits_.enqueue({name, state_.part_json(name), now, epoch}, holder_);
    }
    if (durable(ticket, res)) answer(res, 200, broker_api::deltas_answer_to_json(epoch, deltas.size()));
}

}  // namespace spiderflow::broker
