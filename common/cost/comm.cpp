#include "common/cost/comm.h"

namespace spiderflow::cost {

double ring_half_s(double bytes, int n, double bandwidth_Bps, double latency_s) {
    if (n <= 1) return 0;
    return (n - 1.0) / n * bytes / bandwidth_Bps + (n - 1.0) * latency_s;
}

double ring_allreduce_s(double bytes, int n, double bandwidth_Bps, double latency_s) {
    return 2.0 * ring_half_s(bytes, n, bandwidth_Bps, latency_s);
}

double p2p_s(double bytes, double bandwidth_Bps, double latency_s) { return bytes / bandwidth_Bps + latency_s; }

}  // namespace spiderflow::cost
