#include "common/util/did_you_mean.h"

#include <algorithm>

namespace spiderflow {
namespace {

size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (size_t j = 1; j <= b.size(); ++j)
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

}  // namespace

std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates) {
    // Names are short; cap the work so a config with 100k nodes stays fast.
    if (name.size() > 64 || candidates.size() > 20000) return {};
    std::string best;
    size_t best_d = 3;  // at most two edits
    bool tie = false;
    for (const auto& c : candidates) {
        if (c == name || c.size() > 64) continue;
        size_t d = edit_distance(name, c);
        if (d * 2 >= std::max<size_t>(name.size(), 2)) continue;
        if (d < best_d) {
            best_d = d;
            best = c;
            tie = false;
        } else if (d == best_d && c != best) {
            tie = true;
        }
    }
    // gpu09 is as close to gpu01 as to gpu08: a guess among equals would mislead.
    return tie ? std::string() : best;
}

}  // namespace spiderflow
