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
    // Link id of each topology link's a->b direction; b->a is the next id (add_duplex).
    std::vector<int> forward;
    for (const auto& l : topology.links) forward.push_back(net.add_duplex(l.a, l.b, l.bandwidth_Bps, l.latency_s));
    auto links_of = [&](const std::vector<int>& hops) {
        std::vector<int> links;
        for (size_t i = 0; i + 1 < hops.size(); ++i) {
            const int li = topology.link_between(hops[i], hops[i + 1]);
            const bool along = topology.links[static_cast<size_t>(li)].a == hops[i];
            links.push_back(forward[static_cast<size_t>(li)] + (along ? 0 : 1));
        }
        return links;
    };
    for (int a = 0; a < n; ++a) {
        for (int b = 0; b < n; ++b) {
            if (a == b) continue;
            const std::vector<int> hops = topology.route(a, b);
            if (hops.size() < 2) continue;
            net.set_route(a, b, links_of(hops));
            const std::vector<int> fast = topology.route(a, b, RouteKind::fastest);
            if (fast.size() >= 2 && fast != hops) net.set_fast_route(a, b, links_of(fast));
        }
    }
    return net;
}

}  // namespace spiderflow::coflow
