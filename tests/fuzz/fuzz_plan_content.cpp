// Fuzz target: a plan as it reaches slurmctld from a user's sbatch (--llm-plan's content, carried
// zlib+base64) or from a job's environment. Hostile bytes must give a Plan or an InputError,
// within the decoder's bounds; the first byte picks whether the rest is the carried form or the
// plan JSON itself.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/plan/plan_json.h"
#include "common/plan/plan_transport.h"
#include "common/util/errors.h"
#include "common/util/units.h"

namespace {
const spiderflow::Topology& topology() {
    static const spiderflow::Topology t = [] {
        spiderflow::Topology topo;
        topo.name = "fuzz";
        spiderflow::Cluster cl;
        cl.name = "a";
        cl.intra_bandwidth_Bps = spiderflow::units::gbps_to_Bps(400);
        cl.intra_latency_s = 5e-6;
        for (int n = 0; n < 2; ++n) {
            spiderflow::Node node;
            node.name = "a" + std::to_string(n);
            node.gpu_type = "H100-SXM";
            node.gpus = 8;
            cl.nodes.push_back(node);
        }
        topo.clusters.push_back(cl);
        topo.finalize("fuzz");
        return topo;
    }();
    return t;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    const std::string rest(reinterpret_cast<const char*>(data) + 1, size - 1);
    try {
        const std::string json = data[0] & 1 ? spiderflow::decode_plan_text(rest, "fuzz", "plan") : rest;
        const spiderflow::Plan plan = spiderflow::plan_from_json(json, "fuzz", &topology());
        (void)plan.ranks();
        (void)spiderflow::decode_plan_text(spiderflow::encode_plan_text(json));
    } catch (const spiderflow::InputError&) {
    }
    return 0;
}
