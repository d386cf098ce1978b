#include "common/coflow/tc_state.h"
#include "common/util/parse_number.h"

#include <cstdlib>
#include <sstream>

namespace spiderflow::coflow {

namespace {

constexpr int kParentMinor = 0x1;
constexpr int kDefaultMinor = 0xffff;   // traffic_class.cpp's default class

std::vector<std::vector<std::string>> words_by_line(const std::string& text) {
    std::vector<std::vector<std::string>> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        std::istringstream ls(line);
        std::vector<std::string> words;
        for (std::string w; ls >> w;) words.push_back(w);
        if (!words.empty()) out.push_back(std::move(words));
    }
    return out;
}

}  // namespace

bool has_htb_root(const std::string& qdisc_show) {
    for (const auto& w : words_by_line(qdisc_show)) {
        if (w.size() >= 4 && w[0] == "qdisc" && w[1] == "htb" && w[2] == "1:" && w[3] == "root") return true;
    }
    return false;
}

std::vector<int> job_class_minors(const std::string& class_show) {
    std::vector<int> out;
    for (const auto& w : words_by_line(class_show)) {
        // "class htb 1:165 parent 1:1 prio 0 rate ..."
        if (w.size() < 3 || w[0] != "class" || w[1] != "htb" || w[2].rfind("1:", 0) != 0) continue;
        const auto minor = to_hex(std::string_view(w[2]).substr(2), 0xffff);
        if (!minor) continue;
        if (*minor != kParentMinor && *minor != kDefaultMinor) out.push_back(static_cast<int>(*minor));
    }
    return out;
}

std::optional<int> filter_dscp(const std::string& filter_show) {
    for (const auto& w : words_by_line(filter_show)) {
        // "match 00b80000/00fc0000 at 0": the TOS byte is the second byte of the IP header.
        if (w.size() < 4 || w[0] != "match" || w[2] != "at" || w[3] != "0") continue;
        const auto slash = w[1].find('/');
        if (slash == std::string::npos || w[1].substr(slash + 1) != "00fc0000") continue;
        const auto value = to_hex(std::string_view(w[1]).substr(0, slash), 0xffffffff);
        if (!value) continue;
        return static_cast<int>(((*value >> 16) & 0xfc) >> 2);
    }
    return std::nullopt;
}

}  // namespace spiderflow::coflow
