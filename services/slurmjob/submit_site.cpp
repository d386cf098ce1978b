#include "services/slurmjob/submit_site.h"

#include <sys/stat.h>

#include <chrono>
#include <ctime>

#include <exception>

#include "common/site/site_json.h"

namespace spiderflow::slurmjob {
namespace {

double thread_cpu_ms() {
    struct timespec t {};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

}  // namespace

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
    const auto t0 = std::chrono::steady_clock::now();
    const double cpu0 = thread_cpu_ms();
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
    m.read_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    m.read_cpu_ms = thread_cpu_ms() - cpu0;
    return m;
}

void SubmitSiteCache::join() {
    if (reader_.joinable()) reader_.join();
}

std::shared_ptr<const SubmitSite> SubmitSiteCache::get(const SpiderflowConf& config, std::string* error,
                                                       std::string* warning, SiteRead* read) {
    if (read) *read = SiteRead{};
    try {
        const auto topology = topology_.get(config.topology, config.topology_format, error);
        if (!topology) return nullptr;
        std::unique_lock<std::mutex> lock(mu_);
        struct stat st {};
        const FileStamp stamp = FileStamp::of(config.site_state, &st);
        const bool have_file = stamp.exists;
        // An agent that stopped (or lost slurmctld) stops touching the file: past the limit its
        // picture is stale and this cluster is planned alone.
        const double age = have_file ? std::difftime(std::time(nullptr), st.st_mtim.tv_sec) : 0;
        const bool stale = have_file && config.site_state_max_age_s > 0 && age > config.site_state_max_age_s;
        // A refresh read on its own thread and done: jobs plan on it from now. The reader set
        // reader_done_ at its last use of mu_, so joining here cannot wait on this lock.
        const auto install_fresh = [&](bool waited) {
            if (!reader_done_.load()) return;
            if (reader_.joinable()) reader_.join();
            reader_done_ = false;
            if (fresh_ && fresh_->path == config.site_state && fresh_->made.for_topology == topology) {
                held_ = std::move(fresh_);
                if (read) *read = SiteRead{held_->made.read_ms, held_->made.read_cpu_ms, waited};
            }
            fresh_.reset();
        };
        install_fresh(false);
        const bool same_inputs = held_ && held_->path == config.site_state && held_->made.for_topology == topology &&
                                 held_->made.stale == stale;
        if (!(same_inputs && held_->stamp == stamp)) {
            if (same_inputs && held_->made.site->observed && have_file && !stale && S_ISREG(st.st_mode)) {
                // The agent's refresh of the snapshot in use: read beside the submit path.
                if (!reader_.joinable()) {
                    reader_ = std::thread([this, config, topology, st, stamp] {  // throws only if no thread starts
                        std::optional<Held> got;
                        try {
                            got = Held{config.site_state, stamp, make(config, topology, st, true, false, 0)};
                        } catch (...) {
                            // Nothing installed: the next get() after this one reads again.
                        }
                        const std::lock_guard<std::mutex> done(mu_);
                        fresh_ = std::move(got);
                        reader_done_ = true;
                        read_done_.notify_all();
                    });
                    // This call waits a little: a small federation's refresh is read by then.
                    // (No wait at all is none: a wait of 0 still lets the reader in.)
                    if (refresh_wait_ms_ > 0) {
                        read_done_.wait_for(lock, std::chrono::duration<double, std::milli>(refresh_wait_ms_),
                                            [&] { return reader_done_.load(); });
                        install_fresh(true);
                    }
                }
            } else {
                held_ = Held{config.site_state, stamp, make(config, topology, st, have_file, stale, age)};
                if (read) *read = SiteRead{held_->made.read_ms, held_->made.read_cpu_ms, true};
            }
        }
        if (warning) *warning = held_->made.warning;
        return held_->made.site;
    } catch (const std::exception& e) {
        if (error) *error = std::string("site state: ") + e.what();
        return nullptr;
    }
}

}  // namespace spiderflow::slurmjob
