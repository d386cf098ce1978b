// Collective and point-to-point times, latency + bytes/bandwidth (alpha-beta model).
#pragma once

namespace spiderflow::cost {

// Ring all-reduce of `bytes` over n participants: 2(n-1)/n * bytes / bw + 2(n-1) * latency.
double ring_allreduce_s(double bytes, int n, double bandwidth_Bps, double latency_s);
// One ring reduce-scatter or all-gather (half an all-reduce).
double ring_half_s(double bytes, int n, double bandwidth_Bps, double latency_s);
// One message.
double p2p_s(double bytes, double bandwidth_Bps, double latency_s);

}  // namespace spiderflow::cost
