#include "tools/spiderflow/doctor/gather_site.h"

#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "common/util/errors.h"
#include "services/broker_client/broker_client.h"
#include "tools/spiderflow/doctor/libslurm_view.h"

extern "C" {
#include <slurm/slurm_version.h>
}

namespace spiderflow::doctor {
namespace {

// slurmctld answers in milliseconds; a dead one costs libslurm its MessageTimeout (10 s) of retries.
constexpr double kSlurmTimeoutS = 25;
// The broker: a short answer or none (the agent's own calls allow 15 s).
constexpr double kBrokerConnectS = 2, kBrokerTotalS = 5;

double unix_now() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

bool is_file(const std::string& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string setting(const slurm::SlurmConf& c, const std::string& key, const std::string& def = "") {
    const auto it = c.settings.find(key);
    return it == c.settings.end() ? def : it->second.value;
}

void gather_slurm(const DoctorOptions& o, SlurmFacts& s) {
    s.built_against = SLURM_VERSION_NUMBER;
    s.controller_asked = !o.offline;
    if (!o.slurm_conf.empty() && !is_file(o.slurm_conf)) {
        s.conf_path = o.slurm_conf;
        s.read_error = "there is no slurm.conf at " + o.slurm_conf;
        s.controller_asked = false;
        return;
    }
    LibslurmView v = read_with_libslurm(o.slurm_conf, !o.offline, kSlurmTimeoutS);
    s.conf_path = !o.slurm_conf.empty() ? o.slurm_conf : v.conf_path;
    if (s.conf_path.empty()) {
        const char* env = std::getenv("SLURM_CONF");
        s.conf_path = env != nullptr ? env : "";
        s.read_error = "Slurm finds no slurm.conf: " + v.file_error;
        s.controller_asked = false;
        return;
    }
    s.libslurm_error = v.file_error;
    s.controller = std::move(v.controller);
    s.controller_error = v.controller_error;
    if (!v.file) s.controller_asked = false;  // libslurm did not get that far
    try {
        s.files = slurm::load_slurm_files(s.conf_path);
    } catch (const InputError& e) {
        s.files_error = e.what();
    }
    if (v.file) s.file_view = std::move(v.file);
    else if (s.files) s.file_view = settings_from_file(s.files->slurm);
}

void gather_confs(const DoctorOptions& o, SiteFacts& f) {
    f.spiderflow.path = !o.spiderflow_conf.empty() ? o.spiderflow_conf : slurmjob::spiderflow_conf_path("", f.slurm.conf_path);
    if (!std::filesystem::exists(f.spiderflow.path)) {
        f.spiderflow.missing = true;
    } else {
        try {
            f.spiderflow.conf = slurmjob::load_spiderflow_conf(f.spiderflow.path);
        } catch (const InputError& e) {
            f.spiderflow.error = e.what();
        }
    }
    f.agent.path = o.agent_conf;
    if (f.agent.path.empty() && f.spiderflow.conf) f.agent.path = f.spiderflow.conf->controller_agent;
    if (f.agent.path.empty()) f.agent.path = kDefaultAgentConf;
    if (!std::filesystem::exists(f.agent.path)) {
        f.agent.missing = true;
        // Named on purpose (the option, or spiderflow.conf's controller_agent): its absence is a finding.
        if (!o.agent_conf.empty() || f.agent.path != kDefaultAgentConf) f.agent.error = "there is no such file";
        return;
    }
    try {
        f.agent.conf = agent::load_agent_conf(f.agent.path);
    } catch (const InputError& e) {
        f.agent.error = e.what();
    }
}

void gather_broker(const DoctorOptions& o, SiteFacts& f) {
    BrokerFacts& b = f.broker;
    const agent::AgentConf* a = f.agent.conf ? &*f.agent.conf : nullptr;
    b.url = !o.broker.empty() ? o.broker : a != nullptr ? a->broker : "";
    b.token_file = !o.token_file.empty() ? o.token_file : a != nullptr ? a->token_file : "";
    if (b.url.empty()) return;
    BrokerEndpoint e;
    e.url = b.url;
    e.ca_file = !o.ca_file.empty() ? o.ca_file : a != nullptr ? a->ca_file : "";
    e.connect_timeout_s = kBrokerConnectS;
    e.total_timeout_s = kBrokerTotalS;
    e.attempts = 1;
    if (!b.token_file.empty()) {
        try {
            e.token = read_token_file(b.token_file);
        } catch (const BrokerError& err) {
            b.token_error = err.what();
        }
    } else {
        b.token_error = "no token file (token_file = in agent.conf, or --token-file)";
    }
    if (o.offline) return;
    b.asked = true;
    try {
        const BrokerClient client(e);
        b.health = client.get("/healthz");
        while (!b.health.empty() && (b.health.back() == '\n' || b.health.back() == ' ')) b.health.pop_back();
        if (!b.token_error.empty()) return;
        b.asked_at = unix_now();
        const std::string body = client.get("/v1/clusters");
        b.answered_at = unix_now();
        b.clusters = broker_api::clusters_from_text(body, b.url + "/v1/clusters");
    } catch (const BrokerError& err) {
        (b.health.empty() ? b.health_error : b.clusters_error) = err.what();
    } catch (const InputError& err) {
        b.clusters_error = err.what();
    }
}

}  // namespace

SlurmSettings settings_from_file(const slurm::SlurmConf& c) {
    SlurmSettings s;
    s.source = "file";
    s.cluster_name = c.cluster_name;
    s.plugindir = setting(c, "plugindir");  // empty: Slurm's built-in one, which only libslurm knows
    // Slurm's default PlugStackConfig is plugstack.conf in its configuration directory.
    s.plugstack = setting(c, "plugstackconfig", (std::filesystem::path(c.path).parent_path() / "plugstack.conf").string());
    s.job_submit_plugins = setting(c, "jobsubmitplugins");
    s.topology_plugin = setting(c, "topologyplugin");
    s.topology_param = setting(c, "topologyparam");
    s.select_type = setting(c, "selecttype");
    s.sched_type = setting(c, "schedulertype");
    s.job_requeue = setting(c, "jobrequeue", "1") == "0" ? 0 : 1;
    return s;
}

SiteFacts gather_site(const DoctorOptions& options) {
    SiteFacts f;
    f.options = options;
    gather_slurm(options, f.slurm);
    gather_confs(options, f);
    gather_broker(options, f);
    return f;
}

}  // namespace spiderflow::doctor
