#include "services/slurmjob/tres.h"
#include "common/util/parse_number.h"

#include <cstdio>

namespace spiderflow::slurmjob {

std::optional<GpuTres> gpu_in_tres(const char* tres) {
    if (tres == nullptr) return std::nullopt;
    // Entries are separated by ',' or ';'; a GPU entry is gres[:/]gpu[:type][:=count].
    std::string all(tres);
    size_t start = 0;
    while (start < all.size()) {
        size_t end = all.find_first_of(",;", start);
        if (end == std::string::npos) end = all.size();
        std::string e = all.substr(start, end - start);
        start = end + 1;
        if (e.rfind("gres:", 0) == 0 || e.rfind("gres/", 0) == 0) e = e.substr(5);
        if (e.rfind("gpu", 0) != 0 || (e.size() > 3 && e[3] != ':' && e[3] != '=')) continue;
        GpuTres g;
        if (e.size() <= 4) return g;  // "gpu" alone means one
        std::string rest = e.substr(4);
        const auto sep = rest.find_last_of(":=");
        const std::string last = sep == std::string::npos ? rest : rest.substr(sep + 1);
        const std::string type = sep == std::string::npos ? "" : rest.substr(0, sep);
        if (!last.empty() && last.find_first_not_of("0123456789") == std::string::npos && last.size() <= 8) {
            g.count = *to_int<int>(last);  // at most 8 digits
            g.count_given = true;
            g.type = type;
        } else {
            g.type = rest;  // no count: all of it names the type
        }
        return g;
    }
    return std::nullopt;
}

std::optional<int> gpus_in_tres(const char* tres) {
    const auto g = gpu_in_tres(tres);
    if (!g) return std::nullopt;
    return g->count;
}

}  // namespace spiderflow::slurmjob
