#include "services/agent/agent_conf.h"

#include "common/util/errors.h"
#include "common/util/key_value_conf.h"

namespace spiderflow::agent {
namespace {

// "alice, bob,carol" -> {alice, bob, carol}
std::set<std::string> name_set(const std::string& list) {
    std::set<std::string> out;
    std::string item;
    for (char c : list + ",") {
        if (c == ',') {
            if (!item.empty()) out.insert(item);
            item.clear();
        } else if (c != ' ' && c != '\t') {
            item += c;
        }
    }
    return out;
}

}  // namespace

// A pattern for a host name: letters, digits, '.', '-', and the %n / %a it fills in.
std::string checked_wan_address(const ConfLine& l, const std::string& source) {
    bool ok = !l.value.empty();
    for (size_t i = 0; i < l.value.size(); ++i) {
        const char c = l.value[i];
        if (c == '%') {
            ok = ok && i + 1 < l.value.size() && (l.value[i + 1] == 'n' || l.value[i + 1] == 'a');
            ++i;
        } else {
            ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == ':');
        }
    }
    if (!ok) throw InputError(source, l.line, l.key, "expected a host name pattern (%n = node name, %a = its NodeAddr), got '" + l.value + "'");
    return l.value;
}

// node_exporter's textfile collector reads only files named *.prom: another name would be
// written every cycle and never read, silently.
static std::string checked_textfile(const ConfLine& l, const std::string& source) {
    const std::string ext = ".prom";
    const bool ok = l.value.empty() || (l.value.size() > ext.size() && l.value.compare(l.value.size() - ext.size(), ext.size(), ext) == 0);
    if (!ok) throw InputError(source, l.line, l.key, "node_exporter's textfile collector reads only *.prom files, got '" + l.value + "'");
    return l.value;
}

AgentConf parse_agent_conf(const std::string& text, const std::string& source) {
    AgentConf c;
    const std::vector<std::string> keys = {"broker",    "token_file",         "ca_file",   "spiderflow_conf",
                                           "interval",  "snapshot_interval",  "heartbeat", "broker_stale_after",
                                           "links_file", "cross_site_parts", "part_users", "part_accounts",
                                           "part_min_uid", "default_time_limit", "wan_address", "part_end_grace",
                                           "part_fence_after", "probe_interval", "probe_command", "metrics_textfile"};
    for (const ConfLine& l : read_conf_lines(text, source, keys)) {
        if (l.key == "broker") c.broker = l.value;
        else if (l.key == "token_file") c.token_file = l.value;
        else if (l.key == "ca_file") c.ca_file = l.value;
        else if (l.key == "spiderflow_conf") c.spiderflow_conf = l.value;
        else if (l.key == "interval") c.interval_s = conf_seconds(l, 0.2, 3600, source);
        else if (l.key == "snapshot_interval") c.snapshot_interval_s = conf_seconds(l, 10, 86400, source);
        else if (l.key == "heartbeat") c.heartbeat_s = conf_seconds(l, 1, 3600, source);
        else if (l.key == "broker_stale_after") c.broker_stale_after_s = conf_seconds(l, 1, 86400, source);
        else if (l.key == "links_file") c.links_file = l.value;
        else if (l.key == "cross_site_parts") c.cross_site_parts = conf_bool(l, source);
        else if (l.key == "part_users") c.part_users = name_set(l.value);
        else if (l.key == "part_accounts") c.part_accounts = name_set(l.value);
        else if (l.key == "part_min_uid") c.part_min_uid = conf_integer(l, 0, 4294967294L, source);
        else if (l.key == "wan_address") c.wan_address = checked_wan_address(l, source);
        else if (l.key == "probe_interval") c.probe_interval_s = conf_seconds(l, 0, 30 * 86400, source);
        else if (l.key == "probe_command") c.probe_command = l.value;
        else if (l.key == "metrics_textfile") c.metrics_textfile = checked_textfile(l, source);
        else if (l.key == "part_end_grace") c.part_end_grace_s = conf_seconds(l, 0, 86400, source);
        else if (l.key == "part_fence_after") c.part_fence_after_s = conf_seconds(l, 0, 86400, source);
        else if (l.key == "default_time_limit") c.default_time_limit_s = static_cast<int64_t>(conf_seconds(l, 60, 366.0 * 86400, source));
    }
    if (c.probe_command.empty()) c.probe_command = SF_BINDIR "/spiderflow";
    if (c.broker.empty()) throw InputError(source, 0, "broker", "needs the broker's URL (https://HOST:PORT)");
    if (c.snapshot_interval_s < c.interval_s) {
        throw InputError(source, 0, "snapshot_interval", "must not be shorter than interval");
    }
    return c;
}

AgentConf load_agent_conf(const std::string& path) { return parse_agent_conf(read_conf_file(path), path); }

}  // namespace spiderflow::agent
