// sched/spiderflow: sched/backfill, unchanged, plus a thread of ours beside it (the shape of
// Slurm's backfill_wrapper.c: init starts it, fini stops and joins it). The ABI only; the
// thread is ctld_agent.cpp. Trade-off (doc/slurm.md): slurmctld accepts heterogeneous jobs only
// when SchedulerType is exactly sched/backfill, so a site that needs hetjobs keeps
// sched/backfill and runs spiderflow-agent beside slurmctld instead.
#include <chrono>
#include <exception>
#include <memory>

#include "plugins/sched/backfill_host.h"
#include "plugins/sched/ctld_agent.h"
#include "plugins/slurm_internal.h"

extern "C" {
extern const char plugin_name[] = "SpiderFlow: sched/backfill plus the in-controller federation agent";
extern const char plugin_type[] = "sched/spiderflow";
extern const uint32_t plugin_version = SLURM_VERSION_NUMBER;
}

namespace {
std::unique_ptr<spiderflow::plugin::ControllerAgent> g_agent;
}

extern "C" {

int init(void) {
    // Scheduling is backfill's: if it cannot start, slurmctld must not run without a scheduler.
    if (!slurmctld_config.scheduling_disabled && spiderflow::plugin::start_backfill() != SLURM_SUCCESS) return SLURM_ERROR;
    // Ours fails open: a thread that cannot start leaves backfill running alone.
    try {
        g_agent = std::make_unique<spiderflow::plugin::ControllerAgent>();
    } catch (const std::exception& e) {
        error("spiderflow: sched/spiderflow: cannot start its thread (%s): backfill runs alone", e.what());
    }
    info("spiderflow: sched/spiderflow: sched/backfill started%s", g_agent ? ", controller agent thread started" : "");
    return SLURM_SUCCESS;
}

void fini(void) {
    const auto started = std::chrono::steady_clock::now();
    g_agent.reset();
    spiderflow::plugin::stop_backfill();
    info("spiderflow: sched/spiderflow: stopped (%.1f s)",
         std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
}

int sched_p_reconfig(void) {
    spiderflow::plugin::reconfigure_backfill();
    if (g_agent) g_agent->reconfigure();
    return SLURM_SUCCESS;
}

}  // extern "C"
