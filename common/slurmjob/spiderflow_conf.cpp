#include "common/slurmjob/spiderflow_conf.h"

#include "common/plan/launch_contract.h"

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string_view>

#include "common/util/errors.h"

namespace spiderflow::slurmjob {
namespace {

using Setter = std::function<void(SpiderflowConf&, const std::string& value, const std::string& source, int line,
                                  const std::string& key)>;

std::string trim(std::string_view s) {
    const auto b = s.find_first_not_of(" \t\r");
    if (b == std::string_view::npos) return {};
    const auto e = s.find_last_not_of(" \t\r");
    return std::string(s.substr(b, e - b + 1));
}

long parse_long(const std::string& v, long lo, long hi, const std::string& src, int line, const std::string& key) {
    errno = 0;
    char* end = nullptr;
    const long n = std::strtol(v.c_str(), &end, 10);
    if (v.empty() || *end != '\0' || errno == ERANGE || n < lo || n > hi) {
        throw InputError(src, line, key,
                         "expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got '" + v + "'");
    }
    return n;
}

double parse_seconds(const std::string& v, double lo, double hi, const std::string& src, int line, const std::string& key) {
    errno = 0;
    char* end = nullptr;
    const double d = std::strtod(v.c_str(), &end);
    if (v.empty() || *end != '\0' || errno == ERANGE || !(d >= lo && d <= hi)) {
        throw InputError(src, line, key, "expected seconds in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                             "], got '" + v + "'");
    }
    return d;
}

bool parse_bool(const std::string& v, const std::string& src, int line, const std::string& key) {
    if (v == "yes" || v == "true" || v == "1" || v == "on") return true;
    if (v == "no" || v == "false" || v == "0" || v == "off") return false;
    throw InputError(src, line, key, "expected yes or no, got '" + v + "'");
}

Setter str(std::string SpiderflowConf::*field) {
    return [field](SpiderflowConf& c, const std::string& v, const std::string&, int, const std::string&) { c.*field = v; };
}
Setter integer(int SpiderflowConf::*field, long lo, long hi) {
    return [=](SpiderflowConf& c, const std::string& v, const std::string& s, int l, const std::string& k) {
        c.*field = static_cast<int>(parse_long(v, lo, hi, s, l, k));
    };
}
Setter seconds(double SpiderflowConf::*field, double lo, double hi) {
    return [=](SpiderflowConf& c, const std::string& v, const std::string& s, int l, const std::string& k) {
        c.*field = parse_seconds(v, lo, hi, s, l, k);
    };
}
Setter boolean(bool SpiderflowConf::*field) {
    return [=](SpiderflowConf& c, const std::string& v, const std::string& s, int l, const std::string& k) {
        c.*field = parse_bool(v, s, l, k);
    };
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
        {"tc_match", [](SpiderflowConf& c, const std::string& v, const std::string& s, int l, const std::string& k) {
             if (v != "dscp" && v != "fwmark") throw InputError(s, l, k, "expected dscp or fwmark, got '" + v + "'");
             c.tc_match = v;
         }},
        {"nccl_group_classes", boolean(&SpiderflowConf::nccl_group_classes)},
    };
    return table;
}

std::string key_list() {
    std::string out;
    for (const auto& k : keys()) out += (out.empty() ? "" : ", ") + std::string(k.name);
    return out;
}

}  // namespace

SpiderflowConf parse_spiderflow_conf(const std::string& text, const std::string& source) {
    SpiderflowConf cfg;
    cfg.source = source;
    std::istringstream in(text);
    std::string raw;
    int line = 0;
    std::vector<std::string> seen;
    while (std::getline(in, raw)) {
        ++line;
        const auto hash = raw.find('#');
        const std::string body = trim(hash == std::string::npos ? raw : raw.substr(0, hash));
        if (body.empty()) continue;
        const auto eq = body.find('=');
        if (eq == std::string::npos) throw InputError(source, line, "", "expected key=value, got '" + body + "'");
        const std::string key = trim(body.substr(0, eq));
        const std::string value = trim(body.substr(eq + 1));
        const Key* found = nullptr;
        for (const auto& k : keys()) {
            if (key == k.name) found = &k;
        }
        if (found == nullptr) throw InputError(source, line, key, "unknown key; valid keys: " + key_list());
        for (const auto& s : seen) {
            if (s == key) throw InputError(source, line, key, "key given twice");
        }
        seen.push_back(key);
        found->set(cfg, value, source, line, key);
    }
    if (cfg.master_port_base + cfg.master_port_span > 65535) {
        throw InputError(source, 0, "master_port_span", "master_port_base + master_port_span exceeds 65535");
    }
    if (cfg.traffic_control && (cfg.wan_interface.empty() || cfg.wan_rate_mbit <= 0)) {
        throw InputError(source, 0, "traffic_control", "needs wan_interface and wan_rate_mbit");
    }
    return cfg;
}

SpiderflowConf load_spiderflow_conf(const std::string& path) {
    std::ifstream f(path);
    if (!f) throw InputError(path, 0, "", "cannot open config file");
    std::ostringstream text;
    text << f.rdbuf();
    return parse_spiderflow_conf(text.str(), path);
}

std::string spiderflow_conf_path(const std::string& plugin_arg) {
    if (const char* env = std::getenv(env::kConf); env != nullptr && *env != '\0') return env;
    if (!plugin_arg.empty()) return plugin_arg;
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
