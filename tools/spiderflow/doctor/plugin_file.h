// A Slurm plugin's identity read from its file, without loading it: the values of its exported
// plugin_name, plugin_type and plugin_version, as Slurm's loader reads them with dlsym()
// (src/common/plugin.c) before it accepts a plugin. Loading would run the plugin's constructors
// and need the daemon's own symbols (the topology and sched plugins use slurmctld's tables), so
// the ELF file's dynamic symbol table is read instead (64-bit ELF, the platforms Slurm runs on).
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>

namespace spiderflow::doctor {

struct PluginFile {
    std::string error;             // not a readable 64-bit ELF shared object: why
    std::set<std::string> exports; // defined dynamic symbols
    std::string name, type;        // plugin_name, plugin_type ("" when not exported)
    std::optional<uint32_t> version;  // plugin_version
};

PluginFile read_plugin_file(const std::string& path);

// Whether Slurm's loader accepts a plugin of `type` with `version` in a Slurm of `slurm`: the
// whole SLURM_VERSION_NUMBER must match, SPANK plugins' major and minor only.
bool version_accepted(const std::string& type, uint32_t version, uint32_t slurm);

}  // namespace spiderflow::doctor
