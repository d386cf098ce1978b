// Time to generate a federation and compute its all-pairs widest paths (Topology::finalize),
// 8 to 1024 clusters. Not a test: prints figures only.
//   bench/topology_bench [SEED]
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "common/topology/generator.h"

int main(int argc, char** argv) {
    using clock = std::chrono::steady_clock;
    const unsigned long seed = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 1;
    std::printf("%8s %8s %8s %12s %12s %10s\n", "clusters", "links", "GPUs", "generate_ms", "finalize_ms", "max_hops");
    for (int n : {8, 16, 64, 256, 512, 1024}) {
        spiderflow::GeneratorOptions opt;
        opt.clusters = n;
        opt.seed = seed;
        const auto t0 = clock::now();
        spiderflow::Topology t = spiderflow::generate_topology(opt);  // includes one finalize
        const auto t1 = clock::now();
        t.finalize("bench");
        const auto t2 = clock::now();
        int max_hops = 0;
        for (int a = 0; a < n; ++a) {
            for (int b = 0; b < n; ++b) max_hops = std::max(max_hops, t.path(a, b).hops);
        }
        const double gen_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
        const double fin_ms = std::chrono::duration<double, std::milli>(t2 - t1).count();
        std::printf("%8d %8zu %8d %12.1f %12.1f %10d\n", n, t.links.size(), t.total_gpus(), gen_ms - fin_ms, fin_ms,
                    max_hops);
    }
    return 0;
}
