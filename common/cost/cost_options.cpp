// Spellings of the cost options that front ends take as words.
#include "common/cost/cost_model.h"
#include "common/util/errors.h"

namespace spiderflow {

const char* to_string(RecomputeGranularity g) { return g == RecomputeGranularity::full ? "full" : "selective"; }

RecomputeGranularity recompute_granularity_from_string(const std::string& s, const std::string& source,
                                                       const std::string& field) {
    if (s == "full") return RecomputeGranularity::full;
    if (s == "selective") return RecomputeGranularity::selective;
    throw InputError(source, 0, field, "must be full or selective, not '" + s + "'");
}

}  // namespace spiderflow
