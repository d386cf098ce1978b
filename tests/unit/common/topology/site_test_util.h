// Shared helpers of the topology_site tests: fixture paths and finding lookups.
#pragma once

#include <cstdlib>
#include <string>
#include <vector>

#include "common/topology/checks.h"

namespace spiderflow::test {

// Shipped test data, found through SF_SRCDIR (set by make check).
inline std::string data_path(const std::string& rel) {
    const char* src = std::getenv("SF_SRCDIR");
    return std::string(src && *src ? src : ".") + "/tests/data/" + rel;
}

// Findings whose `what` and `message` contain the given fragments.
inline std::vector<Finding> matching(const std::vector<Finding>& all, const std::string& what,
                                     const std::string& message = "", Severity sev = Severity::error) {
    std::vector<Finding> out;
    for (const auto& f : all)
        if (f.severity == sev && f.what.find(what) != std::string::npos && f.message.find(message) != std::string::npos)
            out.push_back(f);
    return out;
}

inline std::string dump(const std::vector<Finding>& all) {
    std::string s;
    for (const auto& f : all)
        s += std::string(severity_name(f.severity)) + " | " + f.what + " | " + f.message + " | " + f.fix + " | " + f.where + "\n";
    return s;
}

}  // namespace spiderflow::test
