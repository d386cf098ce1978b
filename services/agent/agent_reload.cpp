#include "services/agent/agent_reload.h"

#include <exception>
#include <utility>

#include "common/util/human_format.h"

namespace spiderflow::agent {
namespace {

std::string names(const std::set<std::string>& set) {
    std::string out;
    for (const std::string& s : set) out += (out.empty() ? "" : ",") + s;
    return out.empty() ? "(any)" : out;
}

std::string seconds(double s) { return format_number("%g", s) + " s"; }

// Every key as agent.conf spells it, with its value as text, in the file's order.
std::vector<std::pair<std::string, std::string>> values(const AgentConf& c) {
    return {{"broker", c.broker},
            {"token_file", c.token_file},
            {"ca_file", c.ca_file},
            {"spiderflow_conf", c.spiderflow_conf},
            {"interval", seconds(c.interval_s)},
            {"snapshot_interval", seconds(c.snapshot_interval_s)},
            {"heartbeat", seconds(c.heartbeat_s)},
            {"broker_stale_after", seconds(c.broker_stale_after_s)},
            {"links_file", c.links_file},
            {"cross_site_parts", c.cross_site_parts ? "yes" : "no"},
            {"part_users", names(c.part_users)},
            {"part_accounts", names(c.part_accounts)},
            {"part_min_uid", std::to_string(c.part_min_uid)},
            {"default_time_limit", seconds(static_cast<double>(c.default_time_limit_s))},
            {"wan_address", c.wan_address},
            {"part_end_grace", seconds(c.part_end_grace_s)},
            {"part_fence_after", seconds(c.part_fence_after_s)},
            {"probe_interval", seconds(c.probe_interval_s)},
            {"probe_command", c.probe_command},
            {"metrics_textfile", c.metrics_textfile}};
}

}  // namespace

std::vector<std::string> agent_conf_changes(const AgentConf& before, const AgentConf& after) {
    const auto old_values = values(before), new_values = values(after);
    std::vector<std::string> out;
    for (size_t i = 0; i < old_values.size(); ++i) {
        if (old_values[i].second == new_values[i].second) continue;
        const auto shown = [](const std::string& v) { return v.empty() ? std::string("(none)") : v; };
        out.push_back(old_values[i].first + ": " + shown(old_values[i].second) + " -> " + shown(new_values[i].second));
    }
    return out;
}

std::optional<LoadedAgent> reload_agent(const LoadedAgent& running, const std::function<LoadedAgent()>& load,
                                        const Agent::Log& log) {
    LoadedAgent fresh;
    try {
        fresh = load();
    } catch (const std::exception& e) {
        log(std::string("SIGHUP: the configuration does not load, the running one stays: ") + e.what());
        return std::nullopt;
    }
    const AgentSetup& was = running.setup;
    const AgentSetup& now = fresh.setup;
    if (now.cluster != was.cluster || now.cache_path != was.cache_path) {
        log("SIGHUP: " + now.conf.spiderflow_conf + " now names cluster '" + now.cluster + "' and site_state " +
            now.cache_path + " (running: '" + was.cluster + "', " + was.cache_path +
            "): read at start only, so restart the agent for them; the running configuration stays");
        return std::nullopt;
    }
    const std::vector<std::string> changes = agent_conf_changes(was.conf, now.conf);
    const bool token = fresh.endpoint.token != running.endpoint.token;
    if (changes.empty() && !token) {
        log("SIGHUP: configuration read again, nothing changed");
    } else {
        for (const std::string& c : changes) log("SIGHUP: " + c);
        if (token) log("SIGHUP: a new token from " + now.conf.token_file);
    }
    // The topology stays the one the agent started with: job_submit and the broker check the
    // same file, which a running agent does not swap under them.
    fresh.setup.topology = was.topology;
    return fresh;
}

}  // namespace spiderflow::agent
