// plugstack.conf as Slurm's SPANK loader reads it (src/common/spank.c): `required|optional PATH
// [ARGS...]` lines and `include GLOB` lines (a relative GLOB is beside the file that includes
// it, as with plugstack.conf.d/*.conf), '#' comments. A relative PATH is looked for in PluginDir.
#pragma once

#include <string>
#include <vector>

namespace spiderflow::doctor {

struct SpankLine {
    std::string file;   // the file that holds the line
    int line = 0;
    bool required = false;
    std::string path;   // as written
    std::vector<std::string> args;
    std::string where() const { return file + ":" + std::to_string(line); }
};

struct Plugstack {
    std::vector<SpankLine> plugins;
    std::vector<std::string> read;     // files read, the top one first
    std::vector<std::string> problems; // "FILE:LINE: ..." for lines Slurm would refuse, unreadable includes
};

// Follows includes (at most 8 deep, a file once). `path` missing: plugins empty, problems says so.
Plugstack read_plugstack(const std::string& path);

// PATH of a plugin line as Slurm finds it: itself when absolute, else the first PluginDir entry
// holding it; "" when none does.
std::string resolve_in_plugindir(const std::string& path, const std::string& plugindir);

}  // namespace spiderflow::doctor
