// Every metric name an exporter's text holds: its families (TYPE lines, written even without a
// sample) and its samples' names (a histogram's _bucket, _sum and _count).
#pragma once

#include <set>
#include <sstream>
#include <string>

namespace spiderflow::test {

inline std::set<std::string> exported_names(const std::string& text) {
    std::set<std::string> names;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("# TYPE ", 0) == 0) {
            names.insert(line.substr(7, line.find(' ', 7) - 7));
        } else if (!line.empty() && line[0] != '#') {
            names.insert(line.substr(0, line.find_first_of("{ ")));
        }
    }
    return names;
}

}  // namespace spiderflow::test
