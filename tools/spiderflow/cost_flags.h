// The cost-model flags `spiderflow estimate` and `spiderflow plan` both take, parsed one way.
#pragma once

#include <optional>

#include "common/cost/cost_model.h"
#include "common/util/cli_options.h"

namespace spiderflow::cli {

// --recompute[=MODE] (MODE none, selective or full; bare: full), setting *dest.
void add_recompute_option(OptionTable& table, std::optional<Recompute>* dest);
// --sequence-parallel[=yes|no] (bare: yes), setting *dest.
void add_sequence_parallel_option(OptionTable& table, std::optional<bool>* dest);
// --flash-attention, setting *dest.
void add_flash_attention_option(OptionTable& table, std::optional<bool>* dest);

}  // namespace spiderflow::cli
