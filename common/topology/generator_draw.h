// The generators' random draws: platform-independent (the std:: distributions are
// implementation-defined, so the same seed would give another federation elsewhere).
#pragma once

#include <cstdint>
#include <random>

namespace spiderflow {

class GeneratorDraw {
public:
    explicit GeneratorDraw(uint64_t seed) : rng_(seed) {}
    double uniform() { return static_cast<double>(rng_() >> 11) * 0x1.0p-53; }    // [0,1)
    int below(int n) { return static_cast<int>(uniform() * n); }                  // [0,n)
    int between(int lo, int hi) { return lo + below(hi - lo + 1); }               // [lo,hi]

private:
    std::mt19937_64 rng_;
};

}  // namespace spiderflow
