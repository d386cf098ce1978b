// What `spiderflow doctor` knows about one site before it judges anything: the configs it read
// and what Slurm and the broker answered. Gathering (gather_site.cpp) does every read and every
// call; the checks (check_*.cpp) only look at these facts and at the files the facts name, so
// each check can be tested on planted facts without daemons.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/topology/slurm_conf.h"
#include "services/agent/agent_conf.h"
#include "services/broker_client/broker_api_types.h"
#include "services/slurmjob/spiderflow_conf.h"

namespace spiderflow::doctor {

// Where things are, as the command line gave them (empty = the default each names).
struct DoctorOptions {
    std::string slurm_conf;       // empty: Slurm's own choice (SLURM_CONF, then its built-in path)
    std::string spiderflow_conf;  // empty: where job_submit looks (spiderflow_conf_path)
    std::string agent_conf;       // empty: spiderflow.conf's controller_agent, else kDefaultAgentConf
    std::string broker;           // empty: agent.conf's broker
    std::string token_file;       // empty: agent.conf's token_file
    std::string ca_file;          // empty: agent.conf's ca_file
    bool offline = false;         // ask neither slurmctld nor the broker: the files alone
};

constexpr const char* kDefaultAgentConf = "/etc/spiderflow/agent.conf";

// The slurm.conf settings the checks read, from whoever could say: slurmctld (what runs now),
// else libslurm reading the file (Slurm's own parser and defaults), else our own parse of it.
struct SlurmSettings {
    std::string source;        // "slurmctld", "libslurm" or "file"
    std::string cluster_name;
    std::string plugindir;     // ':'-separated
    std::string plugstack;     // PlugStackConfig (Slurm's default filled in where Slurm said it)
    std::string job_submit_plugins;
    std::string topology_plugin;
    std::string topology_param;
    std::string select_type;
    std::string sched_type;
    int job_requeue = 1;       // Slurm's default
    std::string version;       // slurmctld's "22.05.8"; empty when it did not answer
};

struct SlurmFacts {
    std::string conf_path;                 // the slurm.conf read (or looked for)
    std::string read_error;                // why it could not be read at all (then nothing below)
    std::optional<slurm::SlurmFiles> files;  // our parse: lines for "at:", gres.conf, topology.conf
    std::string files_error;               // our parser's refusal
    std::optional<SlurmSettings> file_view;   // libslurm's reading of the file (or ours when it failed)
    std::string libslurm_error;            // what libslurm said when it could not read the file
    std::optional<SlurmSettings> controller;  // slurmctld's answer
    std::string controller_error;          // why slurmctld did not answer ("" when it did or was not asked)
    bool controller_asked = false;
    uint32_t built_against = 0;            // SLURM_VERSION_NUMBER this spiderflow was built against

    // What Slurm runs with: slurmctld's view when it answered, else the file's.
    const SlurmSettings* settings() const { return controller ? &*controller : file_view ? &*file_view : nullptr; }
    // The line of slurm.conf that sets `key` (lower-case), 0 when the file does not set it.
    int line_of(const std::string& key) const;
    std::string where(const std::string& key) const;  // "FILE:LINE" or ""
};

struct ConfFacts {
    std::string path;
    bool missing = false;
    std::string error;  // the reader's own message (FILE:LINE: KEY ...)
    std::optional<slurmjob::SpiderflowConf> conf;
};

struct AgentFacts {
    std::string path;
    bool missing = false;
    std::string error;
    std::optional<agent::AgentConf> conf;
};

// The broker as this host reaches it.
struct BrokerFacts {
    std::string url;                 // empty: no broker configured
    std::string token_file;
    bool asked = false;              // false: --offline or no broker
    std::string token_error;         // read_token_file's refusal
    std::string health_error;        // GET /healthz failed: why
    std::string health;              // its answer ("ok", "ok active", ...)
    std::optional<broker_api::Clusters> clusters;  // GET /v1/clusters with the token
    std::string clusters_error;
    double asked_at = 0, answered_at = 0;  // local clock (s since the epoch) around that call
};

struct SiteFacts {
    DoctorOptions options;
    SlurmFacts slurm;
    ConfFacts spiderflow;
    AgentFacts agent;
    BrokerFacts broker;
    // This cluster's name in the federation: spiderflow.conf's cluster, else ClusterName.
    std::string cluster() const;
    // Why the federation checks cannot run when no broker is known: agent.conf is broken, or
    // there is none (a cluster in no federation).
    std::string no_broker_reason() const;
};

// Slurm's version as SLURM_VERSION_NUMBER from "22.05.8"; 0 when it does not read as one.
uint32_t version_number(const std::string& version);
std::string version_text(uint32_t number);  // "22.05.8"

}  // namespace spiderflow::doctor
