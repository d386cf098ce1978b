#include "tools/spiderflow/doctor/site_facts.h"

#include <cstdio>

namespace spiderflow::doctor {

int SlurmFacts::line_of(const std::string& key) const {
    if (!files) return 0;
    const auto it = files->slurm.settings.find(key);
    return it == files->slurm.settings.end() ? 0 : it->second.line;
}

std::string SlurmFacts::where(const std::string& key) const {
    const int line = line_of(key);
    return line > 0 ? conf_path + ":" + std::to_string(line) : std::string();
}

std::string SiteFacts::cluster() const {
    if (spiderflow.conf && !spiderflow.conf->cluster.empty()) return spiderflow.conf->cluster;
    if (const SlurmSettings* s = slurm.settings()) return s->cluster_name;
    return "";
}

std::string SiteFacts::no_broker_reason() const {
    if (agent.conf || !agent.error.empty()) return "agent.conf does not load";
    return "no agent.conf at " + agent.path + ": this cluster is in no federation";
}

uint32_t version_number(const std::string& version) {
    unsigned major = 0, minor = 0, micro = 0;
    char tail = 0;
    // "22.05.8", "24.11.5", also "23.02.0-0rc1": the first three numbers.
    if (std::sscanf(version.c_str(), "%u.%u.%u%c", &major, &minor, &micro, &tail) < 3) return 0;
    if (major > 255 || minor > 255 || micro > 255) return 0;
    return (major << 16) | (minor << 8) | micro;
}

std::string version_text(uint32_t n) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%u.%02u.%u", (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff);
    return buf;
}

}  // namespace spiderflow::doctor
