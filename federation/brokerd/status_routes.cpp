// The broker's status page for people (doc/broker-api.md, "Status page"): GET /status renders
// services/broker/status_page.h from one look under the lock; POST /status/login and
// /status/logout keep a reader's token in a cookie for browsers, which cannot send a bearer header
// from a bookmark. The token never goes into a URL (?token= would land in proxy logs, browser
// history and Referer headers). The cookie is HttpOnly (no script reads it; the page has none
// anyway), Path=/status (the API routes never receive it, so it cannot be used against them),
// SameSite=Lax (sent when a link or bookmark opens the page, never with another site's form or
// fetch; the page only reads), and Secure when the page was served over TLS.
#include <httplib.h>

#include <algorithm>
#include <chrono>

#include "federation/brokerd/broker_api.h"
#include "federation/brokerd/http_answer.h"
#include "services/broker/status_page.h"

namespace spiderflow::broker {
namespace {

constexpr const char* kCookie = "spiderflow_status";
constexpr int kCookieAge_s = 8 * 3600;

// The login form's cookie, if the request has one.
std::string cookie_token(const httplib::Request& req) {
    const std::string all = req.get_header_value("Cookie");
    const std::string key = std::string(kCookie) + "=";
    size_t at = 0;
    while (at < all.size()) {
        while (at < all.size() && (all[at] == ' ' || all[at] == ';')) ++at;
        const size_t end = std::min(all.find(';', at), all.size());
        if (all.compare(at, key.size(), key) == 0) return all.substr(at + key.size(), end - at - key.size());
        at = end;
    }
    return "";
}

// A bearer header first (curl, a reverse proxy that signs its users in), then the cookie.
std::string status_token(const httplib::Request& req) {
    const std::string header = bearer_token(req);
    return header.empty() ? cookie_token(req) : header;
}

// Every HTML answer: no script may run, whatever a text holds (the page escapes it too), no
// framing, nothing cached or sent on as a Referer.
void html(httplib::Response& res, int status, const std::string& body) {
    res.status = status;
    res.set_header("Content-Security-Policy",
                   "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; "
                   "frame-ancestors 'none'; base-uri 'none'");
    res.set_header("X-Content-Type-Options", "nosniff");
    res.set_header("Referrer-Policy", "no-referrer");
    res.set_header("Cache-Control", "no-store");
    res.set_content(body, "text/html; charset=utf-8");
}

// Back to the page after a form (a reload then does not post the form again).
void to_status(httplib::Response& res, const std::string& cookie) {
    res.status = 303;
    res.set_header("Location", "/status");
    res.set_header("Set-Cookie", cookie);
    res.set_header("Cache-Control", "no-store");
}

// TLS ends at this broker, or at a proxy in front of it that says so.
bool over_tls(const httplib::Request& req, bool tls) { return tls || req.get_header_value("X-Forwarded-Proto") == "https"; }

}  // namespace

void BrokerService::install_status(httplib::Server& server) {
    server.Get("/status", [this](const httplib::Request& q, httplib::Response& r) {
        const std::string token = status_token(q);
        if (!tokens_.find(token)) {
            const auto t0 = std::chrono::steady_clock::now();
            html(r, 401, status_login_html(token.empty() ? "" : "This token is no longer valid: sign in again."));
            metrics_.observe("/status", r.status, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
            return;
        }
        serve("/status", q, r, &BrokerService::get_status, &token);
    });
    server.Post("/status/login", [this](const httplib::Request& q, httplib::Response& r) {
        httplib::Params form;
        httplib::detail::parse_query_text(q.body, form);
        const auto field = form.find("token");
        std::string token = field == form.end() ? "" : field->second;
        token.erase(std::remove_if(token.begin(), token.end(), [](unsigned char c) { return std::isspace(c); }), token.end());
        const std::optional<Caller> caller = tokens_.find(token);
        if (!limiter_.allow("status login from " + q.remote_addr)) {
            html(r, 429, status_login_html("Too many sign-in attempts: wait a moment."));
        } else if (!caller) {
            html(r, 401, status_login_html("Unknown token."));
        } else if (caller->role != Caller::Role::reader) {
            // A cluster's token writes that cluster: it belongs in its agent's file, not a browser.
            html(r, 403, status_login_html("That is cluster '" + caller->name + "'s token, which can write: sign in with a reader token."));
        } else {
            to_status(r, std::string(kCookie) + "=" + token + "; Path=/status; Max-Age=" + std::to_string(kCookieAge_s) +
                             "; HttpOnly; SameSite=Lax" + (over_tls(q, tls_) ? "; Secure" : ""));
        }
        metrics_.observe("/status/login", r.status, 0);
    });
    server.Post("/status/logout", [this](const httplib::Request& q, httplib::Response& r) {
        to_status(r, std::string(kCookie) + "=; Path=/status; Max-Age=0; HttpOnly; SameSite=Lax" + (over_tls(q, tls_) ? "; Secure" : ""));
        metrics_.observe("/status/logout", r.status, 0);
    });
}

void BrokerService::get_status(const httplib::Request& req, httplib::Response& res, const Caller& caller) {
    StatusView v;
    v.now = unix_now();
    v.reader = caller.name;
    v.signed_in = bearer_token(req).empty();
    std::shared_ptr<const Topology> topology;
    {
        std::lock_guard<std::mutex> lock(mu_);
        v.federation = federation_figures(state_, xjobs_.jobs(), v.now);
        v.heard = seen_;
        const std::vector<const coalloc::XJob*> all = xjobs_.jobs().by_arrival();
        const size_t shown = std::min(all.size(), kStatusJobs);
        v.jobs_left_out = all.size() - shown;
        for (size_t i = 0; i < shown; ++i) v.jobs.push_back(*all[all.size() - 1 - i]);  // newest first
        topology = state_.shared_topology();
    }
    v.federation.active = writable_;
    // Drawing plans takes a while at hundreds of GPUs: outside the lock, on the copies.
    for (const coalloc::XJob& job : v.jobs) v.plans[job.id] = xjob_plan_svg(job, *topology);
    html(res, 200, status_page_html(v));
}

}  // namespace spiderflow::broker
