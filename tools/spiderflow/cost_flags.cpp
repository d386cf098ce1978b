#include "tools/spiderflow/cost_flags.h"

#include "libspiderflow/util/errors.h"

namespace spiderflow::cli {

namespace {

// "  FLAG<pad>line0\n<indent>line1\n..."
std::string help_entry(const std::string& flag, std::initializer_list<const char*> lines, int column) {
    const size_t col = static_cast<size_t>(column);
    std::string out = "  " + flag;
    out += std::string(out.size() < col ? col - out.size() : 1, ' ');
    bool first = true;
    for (const char* l : lines) {
        if (!first) out += std::string(col, ' ');
        out += l;
        out += "\n";
        first = false;
    }
    return out;
}

}  // namespace

std::string recompute_help(int column) {
    return help_entry("--recompute[=MODE]",
                      {"activation recomputation: none, selective (only the attention core,",
                       "Megatron's --recompute-granularity selective) or full (whole layers;",
                       "what --recompute alone means)"},
                      column);
}

std::string sequence_parallel_help(int column) {
    return help_entry("--sequence-parallel",
                      {"Megatron's sequence parallelism: the activations outside the TP regions",
                       "are split across TP (TP traffic unchanged: reduce-scatter + all-gather)"},
                      column);
}

std::optional<RecomputeChoice> parse_recompute_flag(const std::string& arg, const std::string& source) {
    const std::string flag = "--recompute";
    if (arg == flag) return RecomputeChoice{true, RecomputeGranularity::full};
    if (arg.rfind(flag + "=", 0) != 0) return std::nullopt;
    const std::string mode = arg.substr(flag.size() + 1);
    if (mode == "none") return RecomputeChoice{false, RecomputeGranularity::full};
    if (mode == "full" || mode == "selective") {
        return RecomputeChoice{true, recompute_granularity_from_string(mode, source, flag)};
    }
    throw InputError(source, 0, flag, "must be none, selective or full, not '" + mode + "'");
}

}  // namespace spiderflow::cli
