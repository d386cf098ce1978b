// The cost-model flags `spiderflow estimate` and `spiderflow plan` both take, parsed one way.
#pragma once

#include <optional>
#include <string>

#include "libspiderflow/cost/cost_model.h"

namespace spiderflow::cli {

// Megatron-LM's recomputation choice: off, or on at a granularity.
struct RecomputeChoice {
    bool recompute = false;
    RecomputeGranularity granularity = RecomputeGranularity::full;
};
// --help lines of the two flags, descriptions starting at `column` as the command's other lines do.
std::string recompute_help(int column);
std::string sequence_parallel_help(int column);

// `arg` is "--recompute" or "--recompute=MODE"; nullopt for any other argument. Throws
// InputError(source, 0, "--recompute", ...) naming the modes for an unknown one.
std::optional<RecomputeChoice> parse_recompute_flag(const std::string& arg, const std::string& source);

}  // namespace spiderflow::cli
