// Kept apart from network.cpp so users of the big-switch model do not link the topology code.
#include "common/coflow/network.h"
#include "common/topology/topology.h"
#include "common/util/errors.h"

namespace spiderflow::coflow {

Network Network::from_topology(const Topology& topology) {
    if (!topology.finalized())
        throw InputError(topology.name, 0, "", "topology must be finalized before building a network from it");
    Network net;
    for (const auto& c : topology.clusters) net.add_node(c.name);
    const int n = net.num_nodes();
    // link id of the a->b direction for each cluster pair, -1 when no direct link
    std::vector<int> direct(static_cast<size_t>(n) * n, -1);
    for (const auto& l : topology.links) {
        const int id = net.add_duplex(l.a, l.b, l.bandwidth_Bps, l.latency_s);
        direct[static_cast<size_t>(l.a) * n + l.b] = id;
        direct[static_cast<size_t>(l.b) * n + l.a] = id + 1;
    }
    for (int a = 0; a < n; ++a) {
        for (int b = 0; b < n; ++b) {
            if (a == b) continue;
            const std::vector<int> hops = topology.route(a, b);
            if (hops.size() < 2) continue;
            std::vector<int> links;
            for (size_t i = 0; i + 1 < hops.size(); ++i) links.push_back(direct[static_cast<size_t>(hops[i]) * n + hops[i + 1]]);
            net.set_route(a, b, std::move(links));
        }
    }
    return net;
}

}  // namespace spiderflow::coflow
