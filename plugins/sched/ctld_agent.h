// The broker agent, run by sched/spiderflow on a thread of its own inside slurmctld instead of
// as spiderflow-agent beside it: the same Agent, part runner and home-job hand-off, looking at
// slurmctld's own records (ctld_observer.cpp) instead of asking over RPC. It is on only when
// spiderflow.conf names an agent config (controller_agent = /etc/spiderflow/agent.conf).
//
// Locks: one look takes slurmctld's config, job, node and partition READ locks for a single
// pass over the records and drops them before any network call. Publishing to the broker and
// the cross-site orders (creating, releasing, cancelling parts) run without any slurmctld lock
// held: orders go through Slurm's RPC API to this same slurmctld, like any client's.
// The same thread gives pending cross-site jobs their coflow traffic levels (coflow_priorities.h),
// with or without an agent. A second thread is the parts' fence (services/agent/part_fence.h), as
// in spiderflow-agent: a cycle waiting out a dead link's timeouts must not keep a part running alone.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace spiderflow::agent {
class PartFence;
}

namespace spiderflow::plugin {

class ControllerAgent {
public:
    ControllerAgent();
    ~ControllerAgent();   // stops and joins the thread: fini() and slurmctld shutdown
    ControllerAgent(const ControllerAgent&) = delete;
    ControllerAgent& operator=(const ControllerAgent&) = delete;

    // scontrol reconfigure: the configs are read again before the next cycle.
    void reconfigure();

private:
    void run();
    void fence();

    std::mutex mu_;
    std::condition_variable wake_;
    bool stop_ = false;
    bool reload_ = true;
    // The running configuration's fence and what its Slurm hands need, for the fence's thread
    // (under mu_; replaced on reconfigure). Null without an agent or cross-site parts.
    std::shared_ptr<agent::PartFence> fence_;
    std::string fence_cluster_, fence_wan_;
    long fence_min_uid_ = 0;
    std::thread thread_;
    std::thread fencer_;
};

}  // namespace spiderflow::plugin
