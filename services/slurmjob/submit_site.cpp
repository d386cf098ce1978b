#include "services/slurmjob/submit_site.h"

#include <sys/stat.h>

#include <chrono>
#include <ctime>

#include <exception>

#include "common/site/site_json.h"

namespace spiderflow::slurmjob {

std::shared_ptr<const SubmitSite> make_submit_site(std::shared_ptr<const SiteState> state, bool observed) {
    auto site = std::make_shared<SubmitSite>();
    site->observed = observed;
    site->usable = std::make_shared<const Topology>(state->usable_view());
    site->state = std::move(state);
    return site;
}

// The site over `topology` with the snapshot at config.site_state when it may be used (`st` is
// its stat() answer; `stale` and `age` what the caller judged from it).
SubmitSiteCache::Made SubmitSiteCache::make(const SpiderflowConf& config, const std::shared_ptr<const Topology>& topology,
                                            const struct stat& st, bool have_file, bool stale, double age) {
    Made m;
    m.for_topology = topology;
    m.stale = stale;
    std::shared_ptr<const SiteState> state;
    if (!config.site_state.empty()) {
        try {
            if (!have_file) throw std::runtime_error("cannot stat " + config.site_state);
            // Never open a FIFO or a device under slurmctld's locks: open() could block.
            if (!S_ISREG(st.st_mode)) throw std::runtime_error(config.site_state + " is not a regular file");
            if (stale) {
                throw std::runtime_error(config.site_state + " was last refreshed " +
                                         std::to_string(static_cast<long long>(age)) +
                                         " s ago (site_state_max_age = " +
                                         std::to_string(static_cast<long long>(config.site_state_max_age_s)) +
                                         " s); is spiderflow-agent running?");
            }
            if (static_cast<long long>(st.st_size) > kMaxSiteStateBytes) {
                throw std::runtime_error(config.site_state + " is larger than " +
                                         std::to_string(kMaxSiteStateBytes >> 20) + " MiB");
            }
            SiteState read = read_site_state(config.site_state, topology);
            if (config.measured_link_max_age_s > 0)
                read.forget_measurements_before(static_cast<SiteTime>(std::time(nullptr) - config.measured_link_max_age_s));
            state = std::make_shared<const SiteState>(std::move(read));
        } catch (const std::exception& e) {
            m.warning = std::string("site state not used, planning on this cluster's topology alone: ") + e.what();
        }
    }
    const bool observed = state != nullptr;
    if (!state) state = std::make_shared<const SiteState>(topology);
    m.site = make_submit_site(std::move(state), observed);
    return m;
}

std::shared_ptr<const SubmitSite> SubmitSiteCache::get(const SpiderflowConf& config, std::string* error,
                                                       std::string* warning, double* reread_ms) {
    if (reread_ms) *reread_ms = 0;
    try {
        const auto topology = topology_.get(config.topology, config.topology_format, error);
        if (!topology) return nullptr;
        std::lock_guard<std::mutex> lock(mu_);
        struct stat st {};
        const FileStamp stamp = FileStamp::of(config.site_state, &st);
        const bool have_file = stamp.exists;
        // An agent that stopped (or lost slurmctld) stops touching the file: past the limit its
        // picture is stale and this cluster is planned alone.
        const double age = have_file ? std::difftime(std::time(nullptr), st.st_mtim.tv_sec) : 0;
        const bool stale = have_file && config.site_state_max_age_s > 0 && age > config.site_state_max_age_s;
        const Made* held = state_.held();
        const bool other_inputs = held && (held->for_topology != topology || held->stale != stale);
        const Made& made = state_.get(
            config.site_state, stamp,
            [&](const std::string&, const FileStamp&) {
                const auto t0 = std::chrono::steady_clock::now();
                Made m = make(config, topology, st, have_file, stale, age);
                if (reread_ms) *reread_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
                return m;
            },
            other_inputs);
        if (warning) *warning = made.warning;
        return made.site;
    } catch (const std::exception& e) {
        if (error) *error = std::string("site state: ") + e.what();
        return nullptr;
    }
}

}  // namespace spiderflow::slurmjob
