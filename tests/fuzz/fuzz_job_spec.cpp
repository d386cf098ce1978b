// Fuzz target: job spec JSON. Any input must either give a valid JobSpec or raise InputError;
// a valid spec then goes through the plain layout and the cost model on a small fixed topology,
// which must answer (feasible or not) without crashing.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/cost/cost_model.h"
#include "common/model/job_spec.h"
#include "common/plan/sequential_layout.h"
#include "common/util/errors.h"
#include "common/util/units.h"

namespace {
const spiderflow::Topology& topology() {
    static const spiderflow::Topology t = [] {
        spiderflow::Topology topo;
        topo.name = "fuzz";
        for (int c = 0; c < 2; ++c) {
            spiderflow::Cluster cl;
            cl.name = c == 0 ? "a" : "b";
            cl.intra_bandwidth_Bps = spiderflow::units::gbps_to_Bps(400);
            cl.intra_latency_s = 5e-6;
            for (int n = 0; n < 2; ++n) {
                spiderflow::Node node;
                node.name = cl.name + std::to_string(n);
                node.gpu_type = c == 0 ? "A100-80GB" : "L40S";
                node.gpus = 8;
                cl.nodes.push_back(node);
            }
            topo.clusters.push_back(cl);
        }
        topo.links.push_back({0, 1, spiderflow::units::gbps_to_Bps(10), 0.02});
        topo.finalize("fuzz");
        return topo;
    }();
    return t;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const spiderflow::JobSpec job = spiderflow::parse_job_spec(text, "fuzz", spiderflow::Catalog::builtin());
        job.validate();
        const spiderflow::CostModel model(topology(), spiderflow::Catalog::builtin());
        for (int pp : {1, 2}) {
            try {
                const spiderflow::Plan plan = spiderflow::make_sequential_plan(topology(), job, 4, pp, 2, 0);
                model.estimate(plan);
            } catch (const spiderflow::InfeasibleError&) {
            }
        }
    } catch (const spiderflow::InputError&) {
    }
    return 0;
}
