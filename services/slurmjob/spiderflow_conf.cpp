#include "services/slurmjob/spiderflow_conf.h"

#include "services/launch/launch_contract.h"

#include <unistd.h>

#include <cstdlib>
#include <functional>

#include "common/util/errors.h"
#include "common/util/key_value_conf.h"

namespace spiderflow::slurmjob {
namespace {

using Setter = std::function<void(SpiderflowConf&, const ConfLine& line, const std::string& source)>;

Setter str(std::string SpiderflowConf::*field) {
    return [field](SpiderflowConf& c, const ConfLine& l, const std::string&) { c.*field = l.value; };
}
Setter integer(int SpiderflowConf::*field, long lo, long hi) {
    return [=](SpiderflowConf& c, const ConfLine& l, const std::string& s) {
        c.*field = static_cast<int>(conf_integer(l, lo, hi, s));
    };
}
Setter seconds(double SpiderflowConf::*field, double lo, double hi) {
    return [=](SpiderflowConf& c, const ConfLine& l, const std::string& s) { c.*field = conf_seconds(l, lo, hi, s); };
}
Setter fraction(double SpiderflowConf::*field) {
    return [=](SpiderflowConf& c, const ConfLine& l, const std::string& s) { c.*field = conf_fraction(l, s); };
}
Setter boolean(bool SpiderflowConf::*field) {
    return [=](SpiderflowConf& c, const ConfLine& l, const std::string& s) { c.*field = conf_bool(l, s); };
}

struct Key {
    const char* name;
    Setter set;
};

// One table: the keys, their types and ranges. Documented in contrib/slurm/spiderflow.conf.
const std::vector<Key>& keys() {
    static const std::vector<Key> table = {
        {"enabled", boolean(&SpiderflowConf::enabled)},
        {"topology", str(&SpiderflowConf::topology)},
        {"topology_format", str(&SpiderflowConf::topology_format)},
        {"cluster", str(&SpiderflowConf::cluster)},
        {"site_state", str(&SpiderflowConf::site_state)},
        {"site_state_max_age", seconds(&SpiderflowConf::site_state_max_age_s, 0, 86400 * 365)},
        {"measured_link_max_age", seconds(&SpiderflowConf::measured_link_max_age_s, 0, 86400 * 365)},
        {"degraded_link_fraction", fraction(&SpiderflowConf::degraded_link_fraction)},
        {"cross_site", boolean(&SpiderflowConf::cross_site)},
        {"cross_site_loss", [](SpiderflowConf& c, const ConfLine& l, const std::string& s) {
             if (l.value != "run" && l.value != "refuse") {
                 throw InputError(s, l.line, l.key, "expected run or refuse, got '" + l.value + "'");
             }
             c.refuse_cross_site_loss = l.value == "refuse";
         }},
        {"part_failure_wait", seconds(&SpiderflowConf::part_failure_wait_s, 0, 3600)},
        {"on_failure", [](SpiderflowConf& c, const ConfLine& l, const std::string& s) {
             if (l.value != "end" && l.value != "requeue") {
                 throw InputError(s, l.line, l.key, "expected end or requeue, got '" + l.value + "'");
             }
             c.requeue_on_failure = l.value == "requeue";
         }},
        {"failure_requeues", integer(&SpiderflowConf::failure_requeues, 1, 100)},
        {"controller_agent", str(&SpiderflowConf::controller_agent)},
        {"coflow_levels", boolean(&SpiderflowConf::coflow_levels)},
        {"policy", str(&SpiderflowConf::policy)},
        {"time_budget", seconds(&SpiderflowConf::time_budget_s, 0.001, 60)},
        {"state_dir", str(&SpiderflowConf::state_dir)},
        {"constrain_gpu_type", boolean(&SpiderflowConf::constrain_gpu_type)},
        {"master_port_base", integer(&SpiderflowConf::master_port_base, 1024, 65000)},
        {"master_port_span", integer(&SpiderflowConf::master_port_span, 1, 30000)},
        {"site_env_wins", boolean(&SpiderflowConf::site_env_wins)},
        {"socket_ifname", str(&SpiderflowConf::socket_ifname)},
        {"ib_hca", str(&SpiderflowConf::ib_hca)},
        {"ib_tc", integer(&SpiderflowConf::ib_tc, 0, 255)},
        {"ib_sl", integer(&SpiderflowConf::ib_sl, 0, 15)},
        {"wan_ib_tc", integer(&SpiderflowConf::wan_ib_tc, 0, 255)},
        {"wan_ib_sl", integer(&SpiderflowConf::wan_ib_sl, 0, 15)},
        {"nccl_timeout_base", seconds(&SpiderflowConf::nccl_timeout_base_s, 1, 86400)},
        {"rdzv_timeout_base", seconds(&SpiderflowConf::rdzv_timeout_base_s, 1, 86400)},
        {"traffic_control", boolean(&SpiderflowConf::traffic_control)},
        {"wan_interface", str(&SpiderflowConf::wan_interface)},
        {"wan_rate_mbit", integer(&SpiderflowConf::wan_rate_mbit, 1, 10000000)},
        {"tc_match", [](SpiderflowConf& c, const ConfLine& l, const std::string& s) {
             if (l.value != "dscp" && l.value != "fwmark") {
                 throw InputError(s, l.line, l.key, "expected dscp or fwmark, got '" + l.value + "'");
             }
             c.tc_match = l.value;
         }},
        {"nccl_group_classes", boolean(&SpiderflowConf::nccl_group_classes)},
    };
    return table;
}

}  // namespace

SpiderflowConf parse_spiderflow_conf(const std::string& text, const std::string& source) {
    SpiderflowConf cfg;
    cfg.source = source;
    std::vector<std::string> names;
    for (const auto& k : keys()) names.push_back(k.name);
    for (const ConfLine& l : read_conf_lines(text, source, names)) {
        for (const auto& k : keys()) {
            if (l.key == k.name) k.set(cfg, l, source);
        }
    }
    if (cfg.master_port_base + cfg.master_port_span > 65535) {
        throw InputError(source, 0, "master_port_span", "master_port_base + master_port_span exceeds 65535");
    }
    if (cfg.traffic_control && (cfg.wan_interface.empty() || cfg.wan_rate_mbit <= 0)) {
        throw InputError(source, 0, "traffic_control", "needs wan_interface and wan_rate_mbit");
    }
    return cfg;
}

SpiderflowConf load_spiderflow_conf(const std::string& path) { return parse_spiderflow_conf(read_conf_file(path), path); }

std::string conf_error(const std::string& path) {
    if (path.empty() || ::access(path.c_str(), F_OK) != 0) return "";
    try {
        load_spiderflow_conf(path);
        return "";
    } catch (const std::exception& e) {
        return e.what();
    }
}

const std::string& ConfErrorWatch::error() {
    return error_.get(path_, [](const std::string& path, const FileStamp&) { return conf_error(path); });
}

std::string spiderflow_conf_path(const std::string& plugin_arg, const std::string& slurm_conf_file) {
    if (const char* env = std::getenv(env::kConf); env != nullptr && *env != '\0') return env;
    if (!plugin_arg.empty()) return plugin_arg;
    std::string slurm = slurm_conf_file;
    if (slurm.empty()) {
        if (const char* env = std::getenv("SLURM_CONF"); env != nullptr) slurm = env;
    }
    const auto slash = slurm.rfind('/');
    if (slash != std::string::npos) return slurm.substr(0, slash + 1) + "spiderflow.conf";
    return "/etc/slurm/spiderflow.conf";
}

const char* const* spiderflow_conf_keys() {
    static std::vector<const char*> names = [] {
        std::vector<const char*> v;
        for (const auto& k : keys()) v.push_back(k.name);
        v.push_back(nullptr);
        return v;
    }();
    return names.data();
}

NcclSettings nccl_settings(const SpiderflowConf& config) {
    NcclSettings n;
    n.socket_ifname = config.socket_ifname;
    n.ib_hca = config.ib_hca;
    n.ib_tc = config.ib_tc;
    n.ib_sl = config.ib_sl;
    n.wan_ib_tc = config.wan_ib_tc;
    n.wan_ib_sl = config.wan_ib_sl;
    n.nccl_timeout_base_s = config.nccl_timeout_base_s;
    n.rdzv_timeout_base_s = config.rdzv_timeout_base_s;
    return n;
}

}  // namespace spiderflow::slurmjob
