// /etc/spiderflow/agent.conf: which broker the cluster's agent publishes to, with which token,
// and how often. Where the topology, the cluster's name and the local site-state cache live is
// not repeated here: the agent reads them from the spiderflow.conf that job_submit reads, so the
// two cannot disagree. Strict like every SpiderFlow config (common/util/key_value_conf.h);
// every key is documented in contrib/federation/agent.conf.
#pragma once

#include <set>
#include <cstdint>
#include <string>

namespace spiderflow::agent {

struct AgentConf {
    std::string broker;                                       // URL, or several separated by ','
    std::string token_file = "/etc/spiderflow/agent-token";   // this cluster's token, root-only
    std::string ca_file;                                      // PEM bundle for the broker's TLS; empty = system's
    std::string spiderflow_conf = "/etc/slurm/spiderflow.conf";
    double interval_s = 5;                // one look at slurmctld and its deltas
    double snapshot_interval_s = 600;     // a full snapshot at least this often
    double heartbeat_s = 60;              // an empty delta batch when nothing changed for this long
    double broker_stale_after_s = 60;     // without the broker this long: the cache holds this cluster alone
    std::string links_file;               // measured link figures (JSON lines of link_measured deltas)
    bool cross_site_parts = true;         // carry out the broker's orders for cross-site jobs
    std::set<std::string> part_users;     // who may receive parts here; empty = any user this cluster knows
    std::set<std::string> part_accounts;  // the same for accounts
    long part_min_uid = 1000;             // no part runs as a user below this uid (root, system users)
    std::string wan_address = "%a";       // how other sites reach a node here: %n name, %a NodeAddr
    int64_t default_time_limit_s = 86400; // an sbatch cross-site job without --time: every part's limit
    // A part cancelled on the broker's order whose nodes have not all confirmed its end by then:
    // reported ended, naming those nodes as lost (a lost node holds a job completing until Slurm
    // marks it down, after SlurmdTimeout). Above KillWait plus the epilog.
    double part_end_grace_s = 60;
    // Without an answer from the broker this long, the agent ends this cluster's cross-site parts
    // and removes their reservations itself (part_fence.h): the broker ends their peers after its
    // cluster_silent_after (300 s by default), so keep the two equal. 0 = never.
    double part_fence_after_s = 300;
    // Link probes: ask the broker to measure this cluster's links this often (0 = only when an
    // admin asks, `spiderflow probe now`), and the `spiderflow` command the probe jobs run on the
    // compute nodes.
    double probe_interval_s = 0;
    std::string probe_command;            // empty: the one `make install` put in bindir
    // node_exporter's textfile collector file the agent rewrites each cycle (agent_metrics.h);
    // empty = no metrics written.
    std::string metrics_textfile;
};

// Throws InputError(source, line, key, ...).
AgentConf parse_agent_conf(const std::string& text, const std::string& source);
AgentConf load_agent_conf(const std::string& path);

}  // namespace spiderflow::agent
