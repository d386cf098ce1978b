// What job_submit plans on: the site state (what is drained, down, reserved, busy on this
// cluster and, once the agent feeds it, on the others) over the cluster's topology, and the view
// of it a job queued here can be placed on. Made once per topology file and snapshot, never per
// job: the submit path runs under slurmctld's job write lock.
#pragma once

#include <sys/stat.h>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "common/site/site_state.h"
#include "common/util/file_stamp.h"
#include "services/slurmjob/spiderflow_conf.h"
#include "services/slurmjob/topology_cache.h"

namespace spiderflow::slurmjob {

// This site's cluster in `topology`: the one `cluster =` names (-1 when the topology lacks it),
// else the first. What job_submit plans on and topology/spiderflow_tree numbers nodes by.
inline int site_cluster_index(const SpiderflowConf& config, const Topology& topology) {
    if (topology.clusters.empty()) return -1;
    return config.cluster.empty() ? 0 : topology.cluster_index(config.cluster);
}

struct SubmitSite {
    std::shared_ptr<const SiteState> state;   // the snapshot, or the bare topology when there is none
    std::shared_ptr<const Topology> usable;   // state->usable_view(): drained and down nodes hold no GPUs
    bool observed = false;                    // state came from a snapshot (what the agent saw)
};
std::shared_ptr<const SubmitSite> make_submit_site(std::shared_ptr<const SiteState> state, bool observed);

// A snapshot larger than this is refused (and the bare topology used): a bound on what the
// submit path parses.
constexpr long long kMaxSiteStateBytes = 64LL << 20;

// A read of the snapshot that one get() call installed: how long it took and whether that call
// waited for it (the submit path, under slurmctld's locks) or found it done on its own thread.
struct SiteRead {
    double ms = 0;
    double cpu_ms = 0;   // the reading thread's CPU time: on a busy machine ms is mostly waiting
    bool waited = false;
};

class SubmitSiteCache {
public:
    // How long the call that finds the agent's refresh waits for its read (below): a federation
    // of up to a few hundred clusters is read within it (a 64-cluster cache in about 2 ms), so
    // its first job after a refresh plans on it, as a read in the call did.
    static constexpr double kRefreshWaitMs = 50;
    explicit SubmitSiteCache(double refresh_wait_ms = kRefreshWaitMs) : refresh_wait_ms_(refresh_wait_ms) {}
    SubmitSiteCache(const SubmitSiteCache&) = delete;
    SubmitSiteCache& operator=(const SubmitSiteCache&) = delete;
    ~SubmitSiteCache() { join(); }

    // The site for `config` (its topology= and site_state= files, re-read only when a file
    // changes), or null when the topology is not usable (`error` says why). A snapshot that is
    // missing, unreadable, not a regular file, too large, older than site_state_max_age or made
    // for another topology is not used: the site is the bare topology and `warning` says why (SpiderFlow still plans; the state only sharpens it).
    // Never throws.
    // When the agent rewrites a snapshot that is in use, the new one is read on a thread of this
    // cache: the call that found the change waits for it at most refresh_wait_ms, then it and
    // later callers keep the one held (a refresh older, as it was a moment before) until the read
    // is done: the parse grows with the federation (1 MiB, 50 ms to 0.7 s at 1,024 clusters) and
    // job_submit must not wait for it under slurmctld's locks. Every other change (the first read, another path or topology, a snapshot that aged
    // out, vanished or was not usable) is read by the call itself. `read`, when given, says what
    // this call installed (ms 0: nothing new).
    std::shared_ptr<const SubmitSite> get(const SpiderflowConf& config, std::string* error, std::string* warning,
                                          SiteRead* read = nullptr);
    // Waits for a read in flight: before the code it runs is unloaded (job_submit's fini()), or
    // in a test. Not while another thread calls get().
    void join();

private:
    // The site made from one read of the snapshot, and what else it was made from.
    struct Made {
        std::shared_ptr<const Topology> for_topology;
        bool stale = false;
        std::shared_ptr<const SubmitSite> site;
        std::string warning;
        double read_ms = 0;
        double read_cpu_ms = 0;
    };
    struct Held {
        std::string path;
        FileStamp stamp;
        Made made;
    };
    static Made make(const SpiderflowConf& config, const std::shared_ptr<const Topology>& topology, const struct stat& st,
                     bool have_file, bool stale, double age);

    const double refresh_wait_ms_;
    TopologyCache topology_;
    std::mutex mu_;
    std::condition_variable read_done_;   // with mu_: reader_done_ became true
    std::optional<Held> held_;      // what get() answers with
    std::thread reader_;            // a refreshed snapshot being read, at most one
    std::atomic<bool> reader_done_{false};
    std::optional<Held> fresh_;     // its result, under mu_, installed by the next get()
};

}  // namespace spiderflow::slurmjob
