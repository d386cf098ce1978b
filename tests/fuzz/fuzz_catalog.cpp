// Fuzz target: GPU/model catalog JSON. Any input must either load into the catalog or raise
// InputError; a loaded entry must give finite parameter counts.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/model/catalog.h"
#include "common/util/errors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        spiderflow::Catalog c;
        c.add_json(text, "fuzz");
        for (const auto& name : c.model_names()) {
            const spiderflow::ModelArch* m = c.model(name);
            if (m == nullptr || !std::isfinite(m->total_params()) || m->total_params() <= 0) __builtin_trap();
        }
        for (const auto& name : c.gpu_names()) {
            const spiderflow::GpuType* g = c.gpu(name);
            if (g == nullptr || !(g->peak_flops > 0) || !(g->efficiency > 0)) __builtin_trap();
        }
    } catch (const spiderflow::InputError&) {
    }
    return 0;
}
