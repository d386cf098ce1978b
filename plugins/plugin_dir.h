// Opening a Slurm plugin's .so the way Slurm finds it: each PluginDir entry in turn. Used by
// the plugins that wrap one of Slurm's own (select/cons_tres, sched/backfill).
#pragma once

#include <string>

namespace spiderflow::plugin {

// dlopen(DIR/file, flags) for the first DIR of slurm_conf.plugindir that yields a handle; null
// when none does, with the paths tried in `tried` and the last dlerror() in `why`.
void* dlopen_from_plugindir(const std::string& file, int flags, std::string* tried, std::string* why);

}  // namespace spiderflow::plugin
