// The one option table, registered in every context; values are checked as they are parsed so
// sbatch fails at once on a malformed value.
#include <cstring>
#include <vector>

#include "common/util/errors.h"
#include "plugins/spank/spank_state.h"

namespace spiderflow::plugin::spank {
namespace {

// SPANK hands the callback the option's val (its index in option_table()).
int on_option(int val, const char* optarg, int remote) {
    (void)remote;
    const auto& table = option_table();
    if (val < 0 || val >= static_cast<int>(table.size())) return -1;
    try {
        set_job_option(plugin_state().options, table[static_cast<size_t>(val)].name, optarg ? optarg : "");
        plugin_state().options_given.push_back(table[static_cast<size_t>(val)].name);
        return 0;
    } catch (const InputError& e) {
        slurm_error("spiderflow: %s", e.what());
        return -1;
    }
}

}  // namespace

int register_options(spank_t sp) {
    // spank_option holds char*; the strings live as long as the process (the static table).
    static std::vector<struct spank_option> options = [] {
        std::vector<struct spank_option> v;
        int i = 0;
        for (const auto& o : option_table()) {
            v.push_back({const_cast<char*>(o.name), const_cast<char*>(o.arg_info), const_cast<char*>(o.usage), 1, i++,
                         &on_option});
        }
        return v;
    }();
    for (auto& o : options) {
        if (spank_option_register(sp, &o) != ESPANK_SUCCESS) {
            slurm_error("spiderflow: cannot register --%s", o.name);
            return -1;
        }
    }
    return 0;
}

}  // namespace spiderflow::plugin::spank
