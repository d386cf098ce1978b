// Small alias table for GPU type names; see gpu_alias.h for why it stays small.
#include "common/topology/gpu_alias.h"

#include <array>
#include <cctype>
#include <string_view>
#include <utility>

namespace spiderflow {
namespace {

// lower-case, '_' and ' ' -> '-', "nvidia-" prefix dropped, "-sxm4"/"-sxm5" style kept.
std::string normalize(const std::string& s) {
    std::string out;
    for (char c : s) {
        char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (l == '_' || l == ' ') l = '-';
        if (l == '-' && (out.empty() || out.back() == '-')) continue;
        out += l;
    }
    while (!out.empty() && out.back() == '-') out.pop_back();
    constexpr std::string_view prefix = "nvidia-";
    if (out.rfind(prefix, 0) == 0) out.erase(0, prefix.size());
    return out;
}

constexpr std::array<std::pair<std::string_view, std::string_view>, 22> kAliases{{
    {"v100", "V100"},
    {"tesla-v100", "V100"},
    {"a100-40gb", "A100-40GB"},
    {"a100-sxm4-40gb", "A100-40GB"},
    {"a100-pcie-40gb", "A100-40GB"},
    {"a100-40g", "A100-40GB"},
    {"a100-80gb", "A100-80GB"},
    {"a100-sxm4-80gb", "A100-80GB"},
    {"a100-pcie-80gb", "A100-80GB"},
    {"a100-80g", "A100-80GB"},
    {"a100-80gb-pcie", "A100-80GB"},
    {"h100-sxm", "H100-SXM"},
    {"h100-sxm5", "H100-SXM"},
    {"h100-sxm5-80gb", "H100-SXM"},
    {"h100-80gb-hbm3", "H100-SXM"},  // NVML's name of the SXM part; the PCIe one is "H100 PCIe"
    {"h200", "H200"},
    {"h200-sxm", "H200"},
    {"h200-141gb", "H200"},
    {"l40s", "L40S"},
    {"l40-s", "L40S"},
    {"h100sxm", "H100-SXM"},
    {"a10080gb", "A100-80GB"},
}};

// Families that are GPUs but do not name one catalog entry.
constexpr std::array<std::string_view, 12> kAmbiguousFamilies{
    "a100", "h100", "h100-pcie", "a10", "a40", "l40", "l4", "t4", "p100", "mi250x", "mi300x", "gh200"};

}  // namespace

std::string canonical_gpu_type(const std::string& written) {
    const std::string key = normalize(written);
    for (const auto& [alias, canonical] : kAliases)
        if (key == alias) return std::string(canonical);
    return written;
}

bool looks_like_gpu_type(const std::string& word) {
    const std::string key = normalize(word);
    for (const auto& [alias, canonical] : kAliases)
        if (key == alias) return true;
    for (auto family : kAmbiguousFamilies)
        if (key == family) return true;
    return false;
}

}  // namespace spiderflow
