// The link figures this agent's probes measured, kept in a file beside the site-state cache
// (SITE_STATE.measured-links, JSON lines of link_measured deltas, the links file's format), so an
// agent that restarts publishes them again instead of letting its links fall back to their
// declared figures until the next probe. Figures older than spiderflow.conf's
// measured_link_max_age are not restored: job_submit would not use them either.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "common/site/site_types.h"

namespace spiderflow::agent {

// Where an agent whose cache is `cache_path` keeps its measured links; empty without a cache.
std::string measured_links_path(const std::string& cache_path);

class MeasuredLinkFile {
public:
    using Log = std::function<void(const std::string&)>;
    // path empty: nothing is kept. max_age_s 0: any age is restored.
    MeasuredLinkFile(std::string path, double max_age_s, Log log);

    // The figures kept before, measured at `now - max_age` or later; none when the file is
    // missing or unreadable (said in the log: the probes measure again).
    std::vector<LinkMeasurement> restore(SiteTime now) const;
    // Replaces what is kept with `links`. Never throws; a failure is logged.
    void save(const std::vector<LinkMeasurement>& links) const;

private:
    std::string path_;
    double max_age_s_;
    Log log_;
};

}  // namespace spiderflow::agent
