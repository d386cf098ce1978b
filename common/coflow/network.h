// The network the simulator runs on: directed links with a capacity and a latency, endpoints
// (clusters, or ports of a big switch), and one fixed route per endpoint pair, plus, where the
// topology's fastest route differs from its widest, that fast route for flows that ask for it
// (pipeline messages, as the cost model routes them: common/plan/plan_routes.h).
#pragma once

#include <string>
#include <vector>

namespace spiderflow {
class Topology;
}

namespace spiderflow::coflow {

struct NetLink {
    int from = -1;
    int to = -1;
    double capacity_Bps = 0;
    double latency_s = 0;
    std::string name;
};

class Network {
public:
    // Endpoint names; index = node id used by FlowSpec.
    int add_node(std::string name);
    int add_link(int from, int to, double capacity_Bps, double latency_s);
    // Both directions of a symmetric link; returns the id of from->to (to->from is id + 1).
    int add_duplex(int a, int b, double capacity_Bps, double latency_s);
    // Fixes the route between two endpoints as the given links (must chain from src to dst).
    void set_route(int src, int dst, std::vector<int> links);
    // The pair's fast route (lowest latency), for flows with FlowSpec::fast_route.
    void set_fast_route(int src, int dst, std::vector<int> links);
    // Routes every pair without a fixed route along the widest path (max bottleneck capacity,
    // then fewest summed latency); unreachable pairs keep an empty route.
    void route_widest();

    // The route from src to dst (empty when src == dst or unreachable); `fast`: the fast route
    // where one was set, else the same.
    const std::vector<int>& route(int src, int dst, bool fast = false) const;
    bool reachable(int src, int dst) const { return src == dst || !route(src, dst).empty(); }
    double route_latency_s(int src, int dst, bool fast = false) const;

    int num_nodes() const { return static_cast<int>(nodes_.size()); }
    int num_links() const { return static_cast<int>(links_.size()); }
    const NetLink& link(int id) const { return links_[static_cast<size_t>(id)]; }
    const std::string& node_name(int id) const { return nodes_[static_cast<size_t>(id)]; }

    // A non-blocking switch with `ports` ports: each port has an uplink (port -> fabric) and a
    // downlink (fabric -> port) of port_Bps; the model of Varys, Aalo and Sincronia.
    static Network big_switch(int ports, double port_Bps);
    // One endpoint per cluster, one duplex link per topology link, routes along
    // Topology::route() (the widest path the topology computed). The topology must be finalized.
    static Network from_topology(const Topology& topology);

private:
    std::vector<std::string> nodes_;
    std::vector<NetLink> links_;
    std::vector<std::vector<int>> routes_;   // n*n
    std::vector<double> route_latency_;      // n*n
    std::vector<std::vector<int>> fast_routes_;   // n*n, empty where the same as routes_
    std::vector<double> fast_latency_;            // n*n
    void ensure_tables();
};

}  // namespace spiderflow::coflow
