#include "services/broker/cross_site_jobs.h"

#include <algorithm>
#include <iostream>

#include "services/coalloc/xjob_json.h"
#include "common/util/errors.h"
#include "common/util/json_read.h"

namespace spiderflow::broker {

CrossSiteJobs::CrossSiteJobs(BrokerStore& store, coalloc::Policy policy)
    : store_(store), policy_(policy), jobs_(policy) {
    reload();
}

void CrossSiteJobs::reload() {
    const uint64_t version = store_.stored_xjobs_version();
    coalloc::Coallocator fresh(policy_);
    for (const StoredXJob& s : store_.load_xjobs()) {
        try {
            fresh.restore(coalloc::xjob_from_json(jsonread::parse(s.doc, "stored job " + s.id), "stored job " + s.id));
        } catch (const InputError& e) {
            // Not fatal: the other jobs go on. Its parts stay as they are until an admin looks.
            std::cerr << "spiderflow: brokerd: stored cross-site job '" << s.id << "' unreadable, skipped: " << e.what()
                      << "\n";
        }
    }
    jobs_ = std::move(fresh);
    jobs_.set_replanner(replanner_);
    version_ = version;
}

void CrossSiteJobs::set_replanner(coalloc::Replanner replanner) {
    replanner_ = std::move(replanner);
    jobs_.set_replanner(replanner_);
}

bool CrossSiteJobs::stale() { return store_.stored_xjobs_version() != version_; }

void CrossSiteJobs::persist(const std::vector<std::string>& ids, const std::string& holder) {
    if (ids.empty()) return;
    std::vector<StoredXJob> out;
    for (const std::string& id : ids) {
        const coalloc::XJob* job = jobs_.find(id);
        out.push_back(job ? StoredXJob{id, job->seq, coalloc::xjob_to_json(*job).dump()} : StoredXJob{id, 0, ""});
    }
    try {
        store_.save_xjobs(out, holder);
        version_ = store_.stored_xjobs_version();
    } catch (...) {
        try {
            reload();
        } catch (const std::exception& e) {
            std::cerr << "spiderflow: brokerd: cannot re-read the cross-site jobs: " << e.what() << "\n";
        }
        throw;
    }
}

const coalloc::XJob& CrossSiteJobs::submit(coalloc::XJob job, int64_t now, const std::string& holder) {
    const std::string id = job.id;
    jobs_.submit(std::move(job), now);
    std::vector<std::string> changed = jobs_.step(now, {});
    if (std::find(changed.begin(), changed.end(), id) == changed.end()) changed.push_back(id);
    persist(changed, holder);
    return *jobs_.find(id);
}

std::pair<int, int> CrossSiteJobs::report(const std::string& cluster, const std::vector<coalloc::Report>& reports,
                                          int64_t now, const std::string& holder) {
    std::vector<std::string> changed;
    int accepted = 0;
    for (const coalloc::Report& r : reports) {
        if (!jobs_.report(cluster, r, now)) continue;
        ++accepted;
        if (std::find(changed.begin(), changed.end(), r.xjob) == changed.end()) changed.push_back(r.xjob);
    }
    persist(changed, holder);
    return {accepted, static_cast<int>(reports.size()) - accepted};
}

bool CrossSiteJobs::cancel(const std::string& id, const std::string& reason, int64_t now, const std::string& holder) {
    if (!jobs_.cancel(id, reason, now)) return false;
    persist({id}, holder);
    return true;
}

void CrossSiteJobs::step(int64_t now, const std::map<std::string, int64_t>& last_seen, const std::string& holder) {
    std::vector<std::string> changed = jobs_.step(now, last_seen);
    // Finished jobs stay a while for `spiderflow jobs` (Policy::keep_finished_s, keep_finished),
    // then leave the store too.
    for (std::string& id : jobs_.forget_finished(now)) changed.push_back(std::move(id));
    persist(changed, holder);
}

}  // namespace spiderflow::broker
