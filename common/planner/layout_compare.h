// What a plan gains over a layout the user gives (`spiderflow plan --compare-with FILE`): the
// given layout (a layout file or a plan JSON) priced by the same cost model as the plan, and the
// two side by side, so "how much faster than what we run today" is one command.
#pragma once

#include <string>

#include "common/cost/cost_model.h"
#include "common/plan/plan.h"

namespace spiderflow {

struct LayoutComparison {
    std::string source;      // the file the layout came from, as named
    Plan given;              // with its prediction by the plan's cost model
    // The plan's iteration time over the given layout's: > 1, the plan is faster. 0 when the
    // given layout does not fit (its prediction says why).
    double speedup = 0;
    double mfu_gain = 0;     // the plan's MFU minus the given layout's (0.05: 5 points)
};

// Prices `given` with `cost` and sets it beside `chosen` (priced by the same model).
LayoutComparison compare_with_layout(const Plan& chosen, Plan given, const CostModel& cost, const std::string& source);

// A few lines for the text output, and the JSON object of the json output's "compared_with".
std::string layout_comparison_text(const LayoutComparison& c, const Plan& chosen, const Topology& topology);
std::string layout_comparison_json(const LayoutComparison& c, const Topology& topology);

}  // namespace spiderflow
