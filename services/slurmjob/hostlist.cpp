#include "services/slurmjob/hostlist.h"

#include <cerrno>
#include <cstdlib>

#include "common/topology/slurm_conf.h"
#include "common/util/errors.h"
#include "common/util/parse_number.h"

namespace spiderflow::slurmjob {
namespace {

long to_number(const std::string& s, const std::string& whole) {
    const auto n = to_int<long>(s, 0);
    if (!n) throw InputError("hostlist", 0, "", "bad number '" + s + "' in '" + whole + "'");
    return *n;
}

}  // namespace

// One hostlist grammar for the whole project: the Slurm config reader's.
std::vector<std::string> expand_hostlist(const std::string& list) {
    return slurm::expand_hostlist(list, "hostlist");
}

std::vector<int> expand_tasks_per_node(const std::string& spec) {
    std::vector<int> out;
    size_t start = 0;
    while (start < spec.size()) {
        auto comma = spec.find(',', start);
        if (comma == std::string::npos) comma = spec.size();
        const std::string part = spec.substr(start, comma - start);
        const auto paren = part.find("(x");
        const long count = to_number(paren == std::string::npos ? part : part.substr(0, paren), spec);
        long times = 1;
        if (paren != std::string::npos) {
            if (part.back() != ')') throw InputError("hostlist", 0, "", "bad tasks-per-node '" + spec + "'");
            times = to_number(part.substr(paren + 2, part.size() - paren - 3), spec);
        }
        if (times > 100000) throw InputError("hostlist", 0, "", "bad tasks-per-node '" + spec + "'");
        for (long i = 0; i < times; ++i) out.push_back(static_cast<int>(count));
        start = comma + 1;
    }
    return out;
}

}  // namespace spiderflow::slurmjob
