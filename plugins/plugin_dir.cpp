#include "plugins/plugin_dir.h"

#include <dlfcn.h>

#include <sstream>

#include "plugins/slurm_internal.h"

namespace spiderflow::plugin {

void* dlopen_from_plugindir(const std::string& file, int flags, std::string* tried, std::string* why) {
    tried->clear();
    std::stringstream dirs(slurm_conf.plugindir != nullptr ? slurm_conf.plugindir : "");
    for (std::string dir; std::getline(dirs, dir, ':');) {
        if (dir.empty()) continue;
        const std::string path = dir + "/" + file;
        *tried += (tried->empty() ? "" : ", ") + path;
        if (void* h = dlopen(path.c_str(), flags)) return h;
        if (const char* e = dlerror()) *why = e;
    }
    return nullptr;
}

}  // namespace spiderflow::plugin
