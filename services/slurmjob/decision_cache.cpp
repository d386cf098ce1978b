// The decision cache in front of decide_uncached(): decide_submission() and decision_key().
#include <chrono>
#include <map>
#include <mutex>

#include "services/slurmjob/submit_planner.h"

namespace spiderflow::slurmjob {
namespace {

// Users resubmit the same spec over and over (sweeps, requeues, arrays of one size); a plan
// found for a request stays valid for the same request on the same topology, so the decision
// is kept and a resubmit costs a lookup instead of a search under slurmctld's job write lock. Entries
// hold the site weakly: a reloaded topology or site state snapshot is a new object and misses.
struct CachedDecision {
    std::weak_ptr<const SubmitSite> site;
    SubmitDecision decision;
};

std::mutex g_cache_mu;
std::map<DecisionKey, CachedDecision> g_cache;
constexpr size_t kCacheEntries = 256;

}  // namespace

DecisionKey decision_key(const JobOptions& options, const SlurmRequest& request, const SpiderflowConf& config) {
    DecisionKey key{options, request, config};
    if (key.options.policy.empty()) key.options.policy = config.policy;
    return key;
}

SubmitDecision decide_submission(const JobOptions& opts, const SlurmRequest& req,
                                 const std::shared_ptr<const SubmitSite>& site, const SpiderflowConf& cfg) {
    // A given plan's content may differ between submits: only planned specs are cached.
    if (!opts.any() || !cfg.enabled || !site || !opts.plan_file.empty()) {
        return decide_uncached(opts, req, site, cfg);
    }
    const auto t0 = std::chrono::steady_clock::now();
    const DecisionKey key = decision_key(opts, req, cfg);
    {
        std::lock_guard<std::mutex> lock(g_cache_mu);
        auto it = g_cache.find(key);
        if (it != g_cache.end() && it->second.site.lock() == site) {
            SubmitDecision d = it->second.decision;
            d.from_cache = true;
            d.planning_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            return d;
        }
    }
    SubmitDecision d = decide_uncached(opts, req, site, cfg);
    // Rejections are cached too (same spec, same answer); fail-open outcomes (a timeout, an
    // internal error) are not, so the next submit tries again.
    if (d.outcome == Outcome::rewrite || d.outcome == Outcome::reject) {
        std::lock_guard<std::mutex> lock(g_cache_mu);
        if (g_cache.size() >= kCacheEntries) g_cache.clear();
        g_cache[key] = {site, d};
    }
    return d;
}

}  // namespace spiderflow::slurmjob
