// The public coflow-benchmark trace format (the Facebook MapReduce trace used by Varys, Aalo and
// Sincronia):
//   line 1:        PORTS COFLOWS
//   then per line: ID ARRIVAL_MS NUM_MAPPERS MAPPER_PORT... NUM_REDUCERS REDUCER_PORT:MB...
// Each reducer receives MB megabytes (2^20 bytes, as in the Varys simulator) split evenly over
// the mappers: one flow per (mapper, reducer) pair, on a non-blocking big switch.
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "common/coflow/coflow.h"

namespace spiderflow::coflow {

constexpr double kTraceMB = 1024.0 * 1024.0;

struct Trace {
    int ports = 0;
    std::vector<TraceCoflow> coflows;   // FlowSpec endpoints are port numbers
};

// Throws InputError naming `source`, the 1-based line and the field for any malformed line.
Trace parse_trace(std::istream& in, const std::string& source);
Trace read_trace(const std::string& path);

// A small synthetic trace in the same format, from our own generator: coflow widths and sizes
// follow the four classes the Varys paper describes for the Facebook trace (short/long x
// narrow/wide), Poisson arrivals. Deterministic for a given seed.
struct TraceGenOptions {
    int ports = 20;
    int coflows = 50;
    double mean_interarrival_ms = 100;
    std::uint64_t seed = 1;
};
std::string generate_trace(const TraceGenOptions& options);

}  // namespace spiderflow::coflow
