#include "common/util/split_list.h"

#include <sstream>

namespace spiderflow {

std::vector<std::string> split_list(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream in(s);
    for (std::string item; std::getline(in, item, ',');) {
        if (!item.empty()) out.push_back(item);
    }
    return out;
}

}  // namespace spiderflow
