#include "tools/spiderflow/cli_options.h"

#include <algorithm>

#include "libspiderflow/util/errors.h"

namespace spiderflow::cli {

bool Options::flag(const std::string& f) const { return std::find(flags.begin(), flags.end(), f) != flags.end(); }

std::string Options::get(const std::string& k, const std::string& def) const {
    auto it = values.find(k);
    return it == values.end() ? def : it->second;
}

double Options::number(const std::string& k, double def) const {
    const std::string v = get(k);
    if (v.empty()) return def;
    try {
        size_t used = 0;
        const double d = std::stod(v, &used);
        if (used == v.size()) return d;
    } catch (const std::exception&) {
    }
    throw InputError("command line", 0, k, "expected a number, got '" + v + "'");
}

Options parse_options(const std::vector<std::string>& args, size_t first, const std::vector<std::string>& flag_names) {
    Options o;
    for (size_t i = first; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--help" || a == "-h") {
            o.flags.push_back("--help");
        } else if (a.rfind("-", 0) != 0) {
            o.words.push_back(a);
        } else if (std::find(flag_names.begin(), flag_names.end(), a) != flag_names.end()) {
            o.flags.push_back(a);
        } else {
            if (i + 1 >= args.size()) throw InputError("command line", 0, a, "missing value");
            o.values[a] = args[++i];
        }
    }
    return o;
}

}  // namespace spiderflow::cli
