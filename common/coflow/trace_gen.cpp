// Our synthetic trace generator. The class mix follows Table/Section 2 of the Varys paper's
// description of the Facebook trace (Chowdhury et al., SIGCOMM 2014): by count about 52%
// short-narrow, 16% long-narrow, 15% short-wide, 17% long-wide, where "short" means the longest
// flow is under 5 MB and "narrow" means at most 50 flows. The exact numbers below are ours.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <sstream>

#include "common/coflow/trace.h"
#include "common/util/errors.h"

namespace spiderflow::coflow {

std::string generate_trace(const TraceGenOptions& o) {
    if (o.ports < 2) throw InputError("trace-gen", 0, "ports", "must be >= 2");
    if (o.coflows < 0) throw InputError("trace-gen", 0, "coflows", "must be >= 0");
    if (!(o.mean_interarrival_ms > 0)) throw InputError("trace-gen", 0, "mean_interarrival_ms", "must be > 0");
    std::mt19937_64 rng(o.seed);
    std::uniform_real_distribution<double> u01(0.0, 1.0);
    std::exponential_distribution<double> gap(1.0 / o.mean_interarrival_ms);
    auto uniform_int = [&](int lo, int hi) { return lo + static_cast<int>(u01(rng) * (hi - lo + 1)) % (hi - lo + 1); };
    std::vector<int> all(o.ports);
    std::iota(all.begin(), all.end(), 0);

    std::ostringstream out;
    out << o.ports << " " << o.coflows << "\n";
    double t = 0;
    for (int id = 1; id <= o.coflows; ++id) {
        const double cls = u01(rng);
        const bool wide = cls >= 0.68;                 // 15% + 17% wide
        const bool longc = (cls >= 0.52 && cls < 0.68) || cls >= 0.83;
        // Widths: narrow = few mappers x few reducers (<= 50 flows), wide = many of both.
        int mappers, reducers;
        if (wide) {
            mappers = uniform_int(std::max(2, o.ports / 4), o.ports);
            reducers = uniform_int(std::max(2, o.ports / 4), o.ports);
        } else {
            mappers = uniform_int(1, std::min(o.ports, 5));
            reducers = uniform_int(1, std::min(o.ports, 10));
        }
        // Per-flow size: short < 5 MB, long 5..500 MB (log-uniform).
        const double flow_mb = longc ? 5.0 * std::pow(100.0, u01(rng)) : 0.05 * std::pow(100.0, u01(rng));
        std::shuffle(all.begin(), all.end(), rng);
        out << id << " " << static_cast<long>(t) << " " << mappers;
        for (int m = 0; m < mappers; ++m) out << " " << all[m];
        std::shuffle(all.begin(), all.end(), rng);
        out << " " << reducers;
        for (int r = 0; r < reducers; ++r) {
            // The format stores MB per reducer: its flows from every mapper together.
            const double mb = flow_mb * mappers * (0.5 + u01(rng));
            std::ostringstream v;
            v.precision(4);
            v << std::fixed << mb;
            out << " " << all[r] << ":" << v.str();
        }
        out << "\n";
        t += gap(rng);
    }
    return out.str();
}

}  // namespace spiderflow::coflow
