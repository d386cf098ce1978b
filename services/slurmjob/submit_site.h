// What job_submit plans on: the site state (what is drained, down, reserved, busy on this
// cluster and, once the agent feeds it, on the others) over the cluster's topology, and the view
// of it a job queued here can be placed on. Made once per topology file and snapshot, never per
// job: the submit path runs under slurmctld's job write lock.
#pragma once

#include <sys/stat.h>

#include <memory>
#include <mutex>
#include <string>

#include "common/site/site_state.h"
#include "common/util/stamped_file.h"
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

class SubmitSiteCache {
public:
    // The site for `config` (its topology= and site_state= files, re-read only when a file
    // changes), or null when the topology is not usable (`error` says why). A snapshot that is
    // missing, unreadable, not a regular file, too large, older than site_state_max_age or made
    // for another topology is not used: the site is the bare topology and `warning` says why (SpiderFlow still plans; the state only sharpens it).
    // Never throws. `reread_ms`, when given, is set to the milliseconds this call spent reading
    // the snapshot anew (it changed), else 0: the submit path's share of the agent's refreshes.
    std::shared_ptr<const SubmitSite> get(const SpiderflowConf& config, std::string* error, std::string* warning,
                                          double* reread_ms = nullptr);

private:
    // The site made from one read of the snapshot, and what else it was made from.
    struct Made {
        std::shared_ptr<const Topology> for_topology;
        bool stale = false;
        std::shared_ptr<const SubmitSite> site;
        std::string warning;
    };
    static Made make(const SpiderflowConf& config, const std::shared_ptr<const Topology>& topology, const struct stat& st,
                     bool have_file, bool stale, double age);

    TopologyCache topology_;
    std::mutex mu_;
    StampedFile<Made> state_;
};

}  // namespace spiderflow::slurmjob
