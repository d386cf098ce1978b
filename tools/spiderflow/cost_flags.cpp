#include "tools/spiderflow/cost_flags.h"

namespace spiderflow::cli {

void add_recompute_option(OptionTable& table, std::function<void(const RecomputeChoice&)> on) {
    table.optional_value("--recompute", "MODE",
                         "activation recomputation: none, selective (only the attention core,\n"
                         "Megatron's --recompute-granularity selective) or full (whole layers;\n"
                         "what --recompute alone means)",
                         [on = std::move(on)](const std::string& mode) {
                             if (mode.empty() || mode == "full") on({true, RecomputeGranularity::full});
                             else if (mode == "selective") on({true, RecomputeGranularity::selective});
                             else if (mode == "none") on({false, RecomputeGranularity::full});
                             else throw BadValue("must be none, selective or full, not '" + mode + "'");
                         });
}

void add_sequence_parallel_option(OptionTable& table, bool* dest) {
    table.flag("--sequence-parallel",
               "Megatron's sequence parallelism: the activations outside the TP regions\n"
               "are split across TP (TP traffic unchanged: reduce-scatter + all-gather)",
               set(dest));
}

}  // namespace spiderflow::cli
