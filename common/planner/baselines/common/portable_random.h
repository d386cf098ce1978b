// Draws over std::mt19937_64 that give the same numbers on every platform. The engine's output
// sequence is fixed by the standard, but std::uniform_int_distribution,
// std::uniform_real_distribution and std::shuffle are implementation-defined, so a seeded
// policy built on them would plan differently under libstdc++, libc++ and MSVC.
#pragma once

#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace spiderflow::baselines {

class PortableRandom {
public:
    explicit PortableRandom(uint64_t seed) : rng_(seed) {}

    // Uniform in [0, 1) from the top 53 bits of one draw.
    double uniform01() { return static_cast<double>(rng_() >> 11) * 0x1.0p-53; }

    // Uniform in [0, n) without modulo bias: draws at or above the largest multiple of n are
    // rejected and redrawn. n <= 0 gives 0.
    uint64_t below(uint64_t n) {
        if (n <= 1) return 0;
        const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
        uint64_t x = rng_();
        while (x >= limit) x = rng_();
        return x % n;
    }
    int below(int n) { return n <= 1 ? 0 : static_cast<int>(below(static_cast<uint64_t>(n))); }

    // Fisher-Yates from the back, with below() as the only source of randomness.
    template <typename T>
    void shuffle(std::vector<T>& v) {
        for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[static_cast<size_t>(below(static_cast<uint64_t>(i)))]);
    }

private:
    std::mt19937_64 rng_;
};

}  // namespace spiderflow::baselines
