#include "plugins/common/hostlist.h"

#include <cerrno>
#include <cstdlib>

#include "common/util/errors.h"

namespace spiderflow::plugin {
namespace {

long to_number(const std::string& s, const std::string& whole) {
    errno = 0;
    char* end = nullptr;
    const long n = std::strtol(s.c_str(), &end, 10);
    if (s.empty() || *end != '\0' || errno == ERANGE || n < 0) {
        throw InputError("hostlist", 0, "", "bad number '" + s + "' in '" + whole + "'");
    }
    return n;
}

// "prefix[1-3,05]suffix..." -> names; recursive on the rest so "a[1-2]b[3-4]" works.
void expand_one(const std::string& item, const std::string& whole, std::vector<std::string>& out) {
    const auto open = item.find('[');
    if (open == std::string::npos) {
        if (item.find(']') != std::string::npos) throw InputError("hostlist", 0, "", "unbalanced ']' in '" + whole + "'");
        out.push_back(item);
        return;
    }
    const auto close = item.find(']', open);
    if (close == std::string::npos) throw InputError("hostlist", 0, "", "unbalanced '[' in '" + whole + "'");
    const std::string prefix = item.substr(0, open);
    const std::string ranges = item.substr(open + 1, close - open - 1);
    const std::string rest = item.substr(close + 1);
    size_t start = 0;
    while (start <= ranges.size()) {
        auto comma = ranges.find(',', start);
        if (comma == std::string::npos) comma = ranges.size();
        const std::string r = ranges.substr(start, comma - start);
        const auto dash = r.find('-');
        const std::string lo_s = dash == std::string::npos ? r : r.substr(0, dash);
        const std::string hi_s = dash == std::string::npos ? r : r.substr(dash + 1);
        const long lo = to_number(lo_s, whole), hi = to_number(hi_s, whole);
        if (hi < lo || hi - lo > 100000) throw InputError("hostlist", 0, "", "bad range '" + r + "' in '" + whole + "'");
        const size_t width = lo_s.size();  // zero padding is kept: n[01-02] -> n01, n02
        for (long i = lo; i <= hi; ++i) {
            std::string num = std::to_string(i);
            if (num.size() < width) num.insert(0, width - num.size(), '0');
            std::vector<std::string> tails;
            expand_one(rest, whole, tails);
            for (const auto& t : tails) out.push_back(prefix + num + t);
        }
        start = comma + 1;
    }
}

}  // namespace

std::vector<std::string> expand_hostlist(const std::string& list) {
    std::vector<std::string> out;
    int depth = 0;
    std::string item;
    for (char c : list) {
        if (c == '[') ++depth;
        if (c == ']') --depth;
        if (depth < 0) throw InputError("hostlist", 0, "", "unbalanced ']' in '" + list + "'");
        if (c == ',' && depth == 0) {
            if (!item.empty()) expand_one(item, list, out);
            item.clear();
        } else {
            item += c;
        }
    }
    if (depth != 0) throw InputError("hostlist", 0, "", "unbalanced '[' in '" + list + "'");
    if (!item.empty()) expand_one(item, list, out);
    return out;
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

}  // namespace spiderflow::plugin
