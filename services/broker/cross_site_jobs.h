// The broker's cross-site jobs: the co-allocator (services/coalloc) with every decision in the
// store before anyone hears of it. A decision the store refuses is undone by re-reading the
// store, which holds the last one that was committed. Not thread-safe: the broker calls it
// under its one lock, which also puts co-allocation decisions in one total order.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "services/coalloc/coallocator.h"
#include "services/broker/broker_store.h"

namespace spiderflow::broker {

class CrossSiteJobs {
public:
    CrossSiteJobs(BrokerStore& store, coalloc::Policy policy);

    // Every job as the store holds it (start, takeover, a standby following).
    void reload();
    // How a job queued again after a failure is planned anew (services/broker/replan.h).
    void set_replanner(coalloc::Replanner replanner);
    // True when another broker changed the stored jobs since this one last read or wrote them.
    bool stale();

    // Each of these returns once the store has the change; LeaseLost or another store error
    // leaves the jobs as the store has them. `holder` is the lease holder (empty without one).
    const coalloc::XJob& submit(coalloc::XJob job, int64_t now, const std::string& holder);
    // {accepted, ignored}
    std::pair<int, int> report(const std::string& cluster, const std::vector<coalloc::Report>& reports, int64_t now,
                               const std::string& holder);
    bool cancel(const std::string& id, const std::string& reason, int64_t now, const std::string& holder);
    // One round of time-driven decisions; `last_seen` as in Coallocator::step.
    void step(int64_t now, const std::map<std::string, int64_t>& last_seen, const std::string& holder);

    std::vector<coalloc::Order> orders_for(const std::string& cluster) const { return jobs_.orders_for(cluster); }
    const coalloc::Coallocator& jobs() const { return jobs_; }

private:
    // Stores the named jobs (deleted ones as deletions); on failure re-reads the store and rethrows.
    void persist(const std::vector<std::string>& ids, const std::string& holder);

    BrokerStore& store_;
    coalloc::Policy policy_;
    coalloc::Coallocator jobs_;
    coalloc::Replanner replanner_;
    uint64_t version_ = 0;  // stored_xjobs_version() as of the last read or write
};

}  // namespace spiderflow::broker
