#include "plugins/common/tres.h"

#include <cstdio>

namespace spiderflow::plugin {

std::optional<int> gpus_in_tres(const char* tres) {
    if (tres == nullptr) return std::nullopt;
    // Entries are separated by ',' or ';'; a GPU entry is gres[:/]gpu[:type][:=]count.
    std::string all(tres);
    size_t start = 0;
    while (start < all.size()) {
        size_t end = all.find_first_of(",;", start);
        if (end == std::string::npos) end = all.size();
        std::string e = all.substr(start, end - start);
        start = end + 1;
        if (e.rfind("gres:", 0) == 0 || e.rfind("gres/", 0) == 0) e = e.substr(5);
        if (e.rfind("gpu", 0) != 0 || (e.size() > 3 && e[3] != ':' && e[3] != '=')) continue;
        const auto sep = e.find_last_of(":=");
        if (sep == std::string::npos || sep + 1 >= e.size()) return 1;  // "gpu" alone means one
        const std::string n = e.substr(sep + 1);
        if (n.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
        try {
            return std::stoi(n);
        } catch (...) {
            return std::nullopt;
        }
    }
    return std::nullopt;
}

std::string content_hash(const std::string& text) {
    unsigned long long h = 1469598103934665603ULL;
    for (unsigned char c : text) {
        h ^= c;
        h *= 1099511628211ULL;
    }
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", h);
    return buf;
}

}  // namespace spiderflow::plugin
