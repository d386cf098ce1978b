#include "tools/spiderflow/cost_flags.h"

namespace spiderflow::cli {

void add_recompute_option(OptionTable& table, std::optional<Recompute>* dest) {
    table.optional_value("--recompute", "MODE",
                         "activation recomputation: none, selective (only the attention core,\n"
                         "Megatron's --recompute-granularity selective) or full (whole layers;\n"
                         "what --recompute alone means)",
                         [dest](const std::string& mode) {
                             if (mode.empty()) *dest = Recompute::full;
                             else if (mode == "none" || mode == "selective" || mode == "full")
                                 *dest = recompute_from_string(mode, "", "");
                             else throw BadValue("must be none, selective or full, not '" + mode + "'");
                         });
}

void add_sequence_parallel_option(OptionTable& table, std::optional<bool>* dest) {
    table.optional_value("--sequence-parallel", "yes|no",
                         "Megatron's sequence parallelism: the activations outside the TP regions\n"
                         "are split across TP (TP traffic unchanged: reduce-scatter + all-gather);\n"
                         "--sequence-parallel alone means yes",
                         [dest](const std::string& v) {
                             if (v != "" && v != "yes" && v != "no") throw BadValue("must be yes or no, not '" + v + "'");
                             *dest = v != "no";
                         });
}

void add_flash_attention_option(OptionTable& table, std::optional<bool>* dest) {
    table.flag("--flash-attention", "FlashAttention (Megatron's --attention-backend flash): no s x s scores kept",
               [dest](const std::string&) { *dest = true; });
}

}  // namespace spiderflow::cli
