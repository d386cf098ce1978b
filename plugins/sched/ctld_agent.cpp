#include "plugins/sched/ctld_agent.h"

#include <chrono>
#include <ctime>
#include <exception>
#include <optional>

#include "services/slurmjob/spiderflow_conf.h"
#include "services/agent/agent_setup.h"
#include "services/agent/home_jobs.h"
#include "services/agent/part_fence.h"
#include "services/agent/part_runner.h"
#include "services/agent/slurm_hands.h"
#include "plugins/sched/coflow_priorities.h"
#include "plugins/sched/ctld_observer.h"
#include "plugins/slurm_conf_file.h"
#include "plugins/slurm_internal.h"

namespace spiderflow::plugin {
namespace {

SiteTime unix_now() { return static_cast<SiteTime>(std::time(nullptr)); }

void log_line(const std::string& text) { info("spiderflow: sched/spiderflow agent: %s", text.c_str()); }

// Everything one configuration builds; rebuilt on reconfigure.
struct Running {
    agent::AgentSetup setup;
    std::unique_ptr<agent::Agent> agent;
    std::unique_ptr<agent::LibslurmHands> hands;
    std::shared_ptr<agent::PartFence> fence;
    std::unique_ptr<agent::PartRunner> parts;
    std::unique_ptr<agent::HomeJobHandoff> handoff;
};

// nullopt: no agent here (none configured, or a config error, logged).
std::optional<Running> load() {
    std::string agent_conf;
    try {
        agent_conf = slurmjob::load_spiderflow_conf(site_conf_path()).controller_agent;
    } catch (const std::exception& e) {
        error("spiderflow: sched/spiderflow: %s: the in-controller agent is off (backfill runs as usual)", e.what());
        return std::nullopt;
    }
    if (agent_conf.empty()) {
        info("spiderflow: sched/spiderflow: no controller_agent in spiderflow.conf: backfill alone");
        return std::nullopt;
    }
    try {
        agent::LoadedAgent loaded = agent::load_agent(
            agent_conf, [] { return std::string(slurm_conf.cluster_name != nullptr ? slurm_conf.cluster_name : ""); }, true,
            log_line);
        Running r;
        r.setup = loaded.setup;
        r.agent = std::make_unique<agent::Agent>(loaded.setup, BrokerClient(loaded.endpoint), observe_slurmctld, log_line);
        r.hands = std::make_unique<agent::LibslurmHands>(r.setup.cluster, r.setup.conf.part_min_uid, r.setup.conf.wan_address);
        if (r.setup.conf.cross_site_parts) r.fence = std::make_shared<agent::PartFence>(r.setup.conf.part_fence_after_s, log_line);
        r.parts = std::make_unique<agent::PartRunner>(
            r.setup.cluster, BrokerClient(loaded.endpoint), *r.hands,
            agent::PartPolicy{r.setup.conf.part_users, r.setup.conf.part_accounts, r.setup.conf.spiderflow_conf,
                              r.setup.conf.part_end_grace_s},
            log_line, r.fence.get());
        r.handoff = std::make_unique<agent::HomeJobHandoff>(r.setup.cluster, BrokerClient(loaded.endpoint), *r.hands,
                                                            r.setup.conf.default_time_limit_s, log_line);
        log_line("cluster '" + r.setup.cluster + "' publishing to " + r.setup.conf.broker + " every " +
                 std::to_string(r.setup.conf.interval_s) + " s (" + agent_conf + ")");
        return r;
    } catch (const std::exception& e) {
        error("spiderflow: sched/spiderflow: %s: the in-controller agent is off (backfill runs as usual)", e.what());
        return std::nullopt;
    }
}

}  // namespace

ControllerAgent::ControllerAgent() : thread_([this] { run(); }), fencer_([this] { fence(); }) {}

ControllerAgent::~ControllerAgent() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
    fencer_.join();
}

void ControllerAgent::fence() {
    std::unique_ptr<agent::LibslurmHands> hands;
    std::shared_ptr<agent::PartFence> checked;
    std::unique_lock<std::mutex> lock(mu_);
    while (!stop_) {
        std::shared_ptr<agent::PartFence> f = fence_;
        if (f != checked) {   // a new configuration: hands of its own
            hands = f ? std::make_unique<agent::LibslurmHands>(fence_cluster_, fence_min_uid_, fence_wan_) : nullptr;
            checked = f;
        }
        if (f && slurmctld_config.shutdown_time == 0) {
            lock.unlock();
            f->check(*hands, std::chrono::steady_clock::now());
            lock.lock();
        }
        wake_.wait_for(lock, std::chrono::seconds(1), [this] { return stop_; });
    }
}

void ControllerAgent::reconfigure() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        reload_ = true;
    }
    wake_.notify_all();
}

void ControllerAgent::run() {
    std::optional<Running> running;
    CoflowPriorities coflow;
    double interval_s = 5;
    while (true) {
        bool reload = false;
        {
            std::unique_lock<std::mutex> lock(mu_);
            if (stop_) break;
            reload = reload_;
            reload_ = false;
        }
        if (reload) {
            {
                std::lock_guard<std::mutex> lock(mu_);
                fence_.reset();
            }
            running.reset();
            running = load();
            if (running) running->agent->force_snapshot();
            interval_s = running ? running->setup.conf.interval_s : 5;
            std::lock_guard<std::mutex> lock(mu_);
            if (running && running->fence) {
                fence_ = running->fence;
                fence_cluster_ = running->setup.cluster;
                fence_min_uid_ = running->setup.conf.part_min_uid;
                fence_wan_ = running->setup.conf.wan_address;
            }
        }
        // Once slurmctld is shutting down its RPCs stop answering: start no call to it.
        if (running && slurmctld_config.shutdown_time == 0) {
            try {
                running->agent->cycle(unix_now());
                if (running->setup.conf.cross_site_parts && slurmctld_config.shutdown_time == 0) {
                    running->handoff->cycle();
                    running->parts->cycle();
                }
                running->agent->write_metrics(running->parts->figures(), unix_now());
            } catch (const std::exception& e) {
                error("spiderflow: sched/spiderflow agent: %s (retried next cycle)", e.what());
            }
        }
        if (slurmctld_config.shutdown_time == 0) coflow.cycle();
        // Until the next look, the part runner's ticks (a nudge at a common start, the next round
        // soon while a cross-site job moves here: PartRunner::tick).
        const auto next = std::chrono::steady_clock::now() + std::chrono::duration<double>(interval_s);
        std::unique_lock<std::mutex> lock(mu_);
        while (!stop_ && !reload_ && std::chrono::steady_clock::now() < next) {
            wake_.wait_for(lock, std::chrono::milliseconds(100), [this] { return stop_ || reload_; });
            if (stop_ || reload_ || !running || !running->setup.conf.cross_site_parts || slurmctld_config.shutdown_time != 0) continue;
            lock.unlock();
            running->parts->tick();
            lock.lock();
        }
    }
}

}  // namespace spiderflow::plugin
