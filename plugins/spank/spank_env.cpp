#include "plugins/spank/spank_state.h"

#include "services/launch/launch_contract.h"

namespace spiderflow::plugin::spank {

std::string job_getenv(spank_t sp, const char* name) {
    // A carried plan is a few KiB; a value that does not fit is treated as absent.
    static thread_local std::vector<char> buf(1u << 20);
    if (spank_getenv(sp, name, buf.data(), static_cast<int>(buf.size())) != ESPANK_SUCCESS) return {};
    return buf.data();
}

std::string planned_getenv(spank_t sp, const std::string& name) {
    std::string v = job_getenv(sp, (env::kSlurmSpankPrefix + name).c_str());
    return v.empty() ? job_getenv(sp, name.c_str()) : v;
}

bool is_spiderflow_step(spank_t sp) {
    if (plugin_state().options.any()) return true;
    char buf[16];
    for (const std::string& name : {std::string(env::kSlurmSpankPrefix) + env::kTp, std::string(env::kTp)}) {
        if (spank_getenv(sp, name.c_str(), buf, sizeof buf) == ESPANK_SUCCESS && buf[0] != '\0') return true;
    }
    return false;
}

}  // namespace spiderflow::plugin::spank
