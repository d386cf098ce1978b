// The evaluation's measurement window over a stream of submissions: from the first submission
// past the warm-up (the first tenth of the stream) to the last one (what runs after it is the
// drain). The trace generator calibrates its arrivals to the load inside it and the run summary
// reports what happened inside it: one definition for both.
#pragma once

#include <algorithm>
#include <utility>
#include <vector>

namespace spiderflow::fedsim {

struct MeasurementWindow {
    double start_s = 0, end_s = 0;
    double span_s() const { return end_s - start_s; }
    bool holds(double t) const { return t >= start_s && t <= end_s; }
};

// Submissions in any order; fewer than 10 give an empty window.
inline MeasurementWindow measurement_window(std::vector<double> submits) {
    if (submits.size() < 10) return {};
    std::sort(submits.begin(), submits.end());
    return {submits[submits.size() / 10], submits.back()};
}

inline double overlap_s(double a0, double a1, double b0, double b1) { return std::max(0.0, std::min(a1, b1) - std::max(a0, b0)); }

}  // namespace spiderflow::fedsim
