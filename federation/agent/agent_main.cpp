// spiderflow-agent: one per cluster, beside slurmctld. Publishes the cluster's nodes, jobs,
// reservations and measured links to spiderflow-brokerd and keeps job_submit's site-state cache
// fresh, until SIGTERM/SIGINT; SIGHUP reads agent.conf again (agent_reload.h) and sends a full
// snapshot on the next cycle.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <ctime>
#include <iostream>
#include <string>
#include <thread>

#include "services/broker_client/broker_client.h"
#include "common/util/cli_options.h"
#include "common/util/errors.h"
#include "common/util/human_format.h"
#include "services/agent/agent.h"
#include "services/agent/agent_reload.h"
#include "services/agent/agent_setup.h"
#include "services/agent/home_jobs.h"
#include "services/agent/part_fence.h"
#include "services/agent/part_runner.h"
#include "services/agent/probe_runner.h"
#include "services/agent/slurm_hands.h"
#include "services/agent/slurm_observer.h"
#include "services/slurm_api/slurm_api.h"

namespace {

constexpr const char* kHelp =
    "usage: spiderflow-agent [--config FILE] [--once | --dry-run]\n\n"
    "The SpiderFlow cluster agent: reads this cluster's nodes, jobs and reservations from\n"
    "slurmctld (libslurm), publishes them to the federation broker, and keeps the site-state\n"
    "file that job_submit plans on (spiderflow.conf's site_state=) fresh with the broker's\n"
    "merged federation. Makes outbound calls only.\n\n"
    "  --config FILE   agent config (default /etc/spiderflow/agent.conf; every key is\n"
    "                  documented in contrib/federation/agent.conf)\n"
    "  --once          one cycle (look, publish, refresh the cache), then exit\n"
    "  --dry-run       print the snapshot this cluster would publish and exit; contacts\n"
    "                  slurmctld only\n"
    "  --help          this text\n\n"
    "The topology, this cluster's name and the cache file come from the spiderflow.conf named\n"
    "by the config's spiderflow_conf= (default /etc/slurm/spiderflow.conf), the file job_submit\n"
    "reads. Slurm's own config is found as every Slurm command finds it (SLURM_CONF).\n\n"
    "Exit status: 0 after a clean stop, 2 on a bad config, topology or token file.\n";

std::atomic<bool> g_stop{false};
std::atomic<bool> g_resync{false};
void on_stop(int) { g_stop = true; }
void on_hup(int) { g_resync = true; }

// This cluster measures the links the topology names it first in (A of A-B); the far end serves.
spiderflow::agent::ProbeSettings probe_settings_of(const spiderflow::agent::AgentSetup& setup) {
    spiderflow::agent::ProbeSettings s{setup.conf.probe_command, setup.conf.probe_interval_s, {}};
    for (const spiderflow::Link& l : setup.topology->links) {
        const std::string a = setup.topology->clusters[static_cast<size_t>(l.a)].name;
        if (a == setup.cluster) s.links.push_back(a + "-" + setup.topology->clusters[static_cast<size_t>(l.b)].name);
    }
    return s;
}

spiderflow::agent::PartPolicy part_policy_of(const spiderflow::agent::AgentConf& c) {
    return {c.part_users, c.part_accounts, c.spiderflow_conf, c.part_end_grace_s};
}

spiderflow::SiteTime unix_now() { return static_cast<spiderflow::SiteTime>(std::time(nullptr)); }

void log_line(const std::string& text) { std::cerr << "spiderflow: agent: " << text << std::endl; }

}  // namespace

int main(int argc, char** argv) {
    using namespace spiderflow;
    using namespace spiderflow::agent;
    std::string config_path = "/etc/spiderflow/agent.conf";
    bool once = false, dry_run = false;
    cli::OptionTable options("spiderflow-agent", kHelp);  // kHelp lists the options itself
    options.value("--config", "FILE", "", cli::store(&config_path));
    options.flag("--once", "", cli::set(&once));
    options.flag("--dry-run", "", cli::set(&dry_run));
    if (const auto status = cli::parse_main(options, argc, argv)) return *status;
    if (!dry_run) slurm_api::init_client();
    AgentSetup setup;
    BrokerEndpoint endpoint;
    try {
        auto cluster_name = [dry_run] { return dry_run ? std::string() : observe_slurm(unix_now()).cluster; };
        LoadedAgent loaded = load_agent(config_path, cluster_name, !dry_run, log_line);
        setup = std::move(loaded.setup);
        endpoint = std::move(loaded.endpoint);
    } catch (const SlurmUnavailable& e) {
        std::cerr << "spiderflow: agent: cannot ask slurmctld for ClusterName (set cluster= in spiderflow.conf): "
                  << e.what() << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "spiderflow: agent: " << e.what() << "\n";
        return 2;
    }
    Agent agent(setup, BrokerClient(endpoint), observe_slurm, log_line);
    LibslurmHands hands(setup.cluster, setup.conf.part_min_uid, setup.conf.wan_address);
    PartFence fence(setup.conf.cross_site_parts ? setup.conf.part_fence_after_s : 0, log_line);
    PartRunner parts(setup.cluster, BrokerClient(endpoint), hands, part_policy_of(setup.conf), log_line, &fence);
    HomeJobHandoff handoff(setup.cluster, BrokerClient(endpoint), hands, setup.conf.default_time_limit_s, log_line);
    ProbeRunner probes(setup.cluster, BrokerClient(endpoint), hands, probe_settings_of(setup),
                       [&agent](const LinkMeasurement& m) { agent.add_measurement(m); }, log_line);
    // SIGHUP: agent.conf (and its token file) read again; each piece goes on with it, keeping what
    // it remembers (parts being ended, jobs handed on, probes asked for).
    LoadedAgent running{setup, endpoint};
    auto reload = [&] {
        const std::string cluster = running.setup.cluster;
        auto fresh = reload_agent(running, [&] { return load_agent(config_path, [&] { return cluster; }, true, log_line); },
                                  log_line);
        if (!fresh) return;
        running = std::move(*fresh);
        const AgentSetup& s = running.setup;
        agent.reconfigure(s, BrokerClient(running.endpoint));
        hands = LibslurmHands(s.cluster, s.conf.part_min_uid, s.conf.wan_address);
        parts.reconfigure(BrokerClient(running.endpoint), part_policy_of(s.conf));
        fence.set_after(s.conf.cross_site_parts ? s.conf.part_fence_after_s : 0);
        handoff.reconfigure(BrokerClient(running.endpoint), s.conf.default_time_limit_s);
        probes.reconfigure(BrokerClient(running.endpoint), probe_settings_of(s));
    };
    if (dry_run) {
        try {
            std::cout << agent.preview(unix_now()) << "\n";
            return 0;
        } catch (const std::exception& e) {
            std::cerr << "spiderflow: agent: " << e.what() << "\n";
            return 1;
        }
    }
    std::signal(SIGTERM, on_stop);
    std::signal(SIGINT, on_stop);
    std::signal(SIGHUP, on_hup);
    std::signal(SIGPIPE, SIG_IGN);
    log_line("cluster '" + setup.cluster + "' publishing to " + setup.conf.broker + " every " +
             format_number("%g", setup.conf.interval_s) + " s");
    using clock = std::chrono::steady_clock;
    // The fence's own thread and Slurm hands: a cycle stuck on a dead link's timeouts must not
    // keep a part running alone (part_fence.h).
    std::thread fencer([&] {
        LibslurmHands fence_hands(setup.cluster, setup.conf.part_min_uid, setup.conf.wan_address);
        while (!g_stop) {
            fence.check(fence_hands, clock::now());
            for (int i = 0; i < 20 && !g_stop; ++i) ::usleep(50000);
        }
    });
    while (!g_stop) {
        if (g_resync.exchange(false)) {
            reload();
            agent.force_snapshot();
        }
        const auto next = clock::now() + std::chrono::duration<double>(running.setup.conf.interval_s);
        agent.cycle(unix_now());
        if (running.setup.conf.cross_site_parts) {
            handoff.cycle();
            parts.cycle();
        }
        probes.cycle(unix_now());
        agent.write_metrics(parts.figures(), unix_now());
        if (once) break;
        while (!g_stop && !g_resync && clock::now() < next) {
            if (running.setup.conf.cross_site_parts) parts.tick();
            ::usleep(50000);
        }
    }
    g_stop = true;  // --once leaves the loop without a signal
    fencer.join();
    log_line("stopped");
    return 0;
}
