// Fuzz target: our topology file format. Any input must either parse into a finalized
// topology (then survive a write/read round trip) or raise InputError; nothing else.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/topology/spiderflow_reader.h"
#include "common/topology/topology_json.h"
#include "common/util/errors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const spiderflow::Topology t = spiderflow::parse_spiderflow_topology(text, "fuzz");
        // Exercise what planners use: every path and route.
        const int n = static_cast<int>(t.clusters.size());
        for (int a = 0; a < n && a < 64; ++a) {
            for (int b = 0; b < n && b < 64; ++b) {
                const auto r = t.route(a, b);
                if (t.path(a, b).reachable() != !r.empty()) __builtin_trap();
            }
        }
        // What we write we must read back.
        spiderflow::parse_spiderflow_topology(spiderflow::topology_to_json(t), "fuzz-rewrite");
    } catch (const spiderflow::InputError&) {
    }
    return 0;
}
