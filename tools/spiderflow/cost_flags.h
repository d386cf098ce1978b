// The cost-model flags `spiderflow estimate` and `spiderflow plan` both take, parsed one way.
#pragma once

#include <functional>

#include "common/cost/cost_model.h"
#include "common/util/cli_options.h"

namespace spiderflow::cli {

// Megatron-LM's recomputation choice: off, or on at a granularity.
struct RecomputeChoice {
    bool recompute = false;
    RecomputeGranularity granularity = RecomputeGranularity::full;
};

// --recompute[=MODE] (MODE none, selective or full; bare: full), handing the choice to `on`.
void add_recompute_option(OptionTable& table, std::function<void(const RecomputeChoice&)> on);
// --sequence-parallel, setting *dest.
void add_sequence_parallel_option(OptionTable& table, bool* dest);

}  // namespace spiderflow::cli
