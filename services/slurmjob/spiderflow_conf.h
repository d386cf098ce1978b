// /etc/slurm/spiderflow.conf: the site's settings for the SPANK and job_submit plugins.
// key=value lines, '#' comments; an unknown key or a bad value is an InputError naming the
// file, line and key, so a typo refuses to load instead of silently doing the default.
#pragma once

#include <compare>
#include <string>
#include <utility>

#include "common/plan/nccl_env.h"
#include "common/util/stamped_file.h"

namespace spiderflow::slurmjob {

struct SpiderflowConf {
    std::string source;                 // file it came from ("<defaults>" when none)
    bool enabled = true;                // false: both plugins pass everything through
    std::string topology;               // topology file: ours, or the cluster's slurm.conf
    std::string topology_format;        // reader name; empty = chosen from the file name
    std::string cluster;                // this cluster's name in the topology; empty = the first
    std::string site_state;             // site state snapshot (doc/site-state.md); empty = none
    double site_state_max_age_s = 300;  // an older snapshot means a stopped agent: not used (0 = any age)
    // A link measured longer ago than this is planned at its declared figure again (0 = any age).
    double measured_link_max_age_s = 86400;
    // `spiderflow jobs` flags a running job whose link is measured below this fraction of the
    // narrowest one its plan used.
    double degraded_link_fraction = 0.5;
    bool cross_site = true;             // larger than this cluster: plan across the federation (needs site_state)
    // A cross-site plan that a plan in one site, or on fewer GPUs, beats: run it as asked (sbatch
    // says so) or refuse it, naming the better request. A job with --llm-gpus-mode=at-most or
    // best gets the better plan either way.
    bool refuse_cross_site_loss = false;
    // A cross-site part whose batch script failed waits this long for the broker's verdict (which
    // part ended the job, and why: its peers may have failed first), so its output names it.
    double part_failure_wait_s = 30;    // 0 = end at once
    // A cross-site job whose part fails for a reason not its user's (a node, a preemption, a
    // site lost), unless the job says (--llm-on-failure): ended, or queued again and planned
    // without what failed, at most failure_requeues times.
    bool requeue_on_failure = false;
    int failure_requeues = 2;
    std::string controller_agent;       // agent.conf for the agent inside sched/spiderflow; empty = none
    bool coflow_levels = true;          // sched/spiderflow gives cross-site jobs their coflow traffic level
    std::string policy = "spinsearch";  // planner used when the job does not name one
    double time_budget_s = 0.5;         // planning budget inside slurmctld; over it -> fail open
    std::string state_dir = "/var/spool/slurm/spiderflow";  // plan JSON files, keyed by hash
    bool constrain_gpu_type = false;    // add the plan's GPU type to the job's --constraint
    int master_port_base = 29500;       // MASTER_PORT = base + job id % port_span
    int master_port_span = 1000;
    bool site_env_wins = true;          // NCCL/c10d settings overwrite the job's own environment
    std::string socket_ifname;          // forces NCCL/GLOO_SOCKET_IFNAME instead of the hwloc choice
    std::string ib_hca;                 // forces NCCL_IB_HCA
    int ib_tc = -1;                     // traffic class / service level for jobs inside one site
    int ib_sl = -1;                     // (-1 = leave NCCL's default)
    int wan_ib_tc = -1;                 // ... and for jobs whose groups cross clusters
    int wan_ib_sl = -1;
    double nccl_timeout_base_s = 600;   // timeouts before scaling by the crossed links' RTT
    double rdzv_timeout_base_s = 900;
    // Coflow enforcement (doc/coflow.md). Off by default; when on, the SPANK plugin installs the
    // job's HTB class on wan_interface at job start and removes it at job end.
    bool traffic_control = false;
    std::string wan_interface;          // the node's WAN interface (required with traffic_control)
    int wan_rate_mbit = 0;              // what that link carries; HTB shapes to it (required)
    std::string tc_match = "dscp";      // how a packet finds its job's class: dscp | fwmark
    bool nccl_group_classes = false;    // NCCL >= 2.26: one class per communicator group

    // job_submit keys its cached decisions by the whole config (submit_planner.h).
    auto operator<=>(const SpiderflowConf&) const = default;
};

// Parses the text of a config file. Throws InputError(source, line, key, ...).
SpiderflowConf parse_spiderflow_conf(const std::string& text, const std::string& source);
// Reads a file; a missing file is an InputError too (the caller decides whether to fail open).
SpiderflowConf load_spiderflow_conf(const std::string& path);

// Why the config at `path` does not load ("FILE:3: cross_site_loss: key given twice"); empty
// when it loads or is missing (the defaults apply). While it is set, SpiderFlow is off on this
// cluster: the agent takes no cross-site part and offers the federation none of its nodes.
std::string conf_error(const std::string& path);

// conf_error() for a caller that asks every round (the agent's look and its part orders): the
// file is parsed again only when its stamp changed.
class ConfErrorWatch {
public:
    explicit ConfErrorWatch(std::string path) : path_(std::move(path)) {}
    const std::string& error();

private:
    std::string path_;
    StampedFile<std::string> error_;
};

// The NCCL-related part of the site config, as nccl_env() takes it (SPANK and `spiderflow launch`).
NcclSettings nccl_settings(const SpiderflowConf& config);

// Where the config is: the SPIDERFLOW_CONF environment variable, else `plugin_arg`
// (plugstack.conf "conf=PATH"), else spiderflow.conf beside slurm.conf (`slurm_conf_file`, the
// file the Slurm process read; else $SLURM_CONF), else /etc/slurm/spiderflow.conf.
std::string spiderflow_conf_path(const std::string& plugin_arg = "", const std::string& slurm_conf_file = "");

// The documented keys, for messages and the docs test.
const char* const* spiderflow_conf_keys();

}  // namespace spiderflow::slurmjob
