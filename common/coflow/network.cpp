#include "common/coflow/network.h"

#include <algorithm>
#include <limits>
#include <queue>

#include "common/util/errors.h"

namespace spiderflow::coflow {

namespace {
const std::vector<int> kNoRoute;
}

int Network::add_node(std::string name) {
    nodes_.push_back(std::move(name));
    routes_.clear();   // tables are rebuilt lazily at the new size
    route_latency_.clear();
    fast_routes_.clear();
    fast_latency_.clear();
    return num_nodes() - 1;
}

int Network::add_link(int from, int to, double capacity_Bps, double latency_s) {
    if (from < 0 || to < 0 || from >= num_nodes() || to >= num_nodes() || from == to)
        throw InputError("network", 0, "links[" + std::to_string(links_.size()) + "]", "link endpoints out of range");
    if (!(capacity_Bps > 0) || latency_s < 0)
        throw InputError("network", 0, "links[" + std::to_string(links_.size()) + "]",
                         "capacity must be > 0 and latency >= 0");
    links_.push_back({from, to, capacity_Bps, latency_s, nodes_[from] + ">" + nodes_[to]});
    return num_links() - 1;
}

int Network::add_duplex(int a, int b, double capacity_Bps, double latency_s) {
    const int id = add_link(a, b, capacity_Bps, latency_s);
    add_link(b, a, capacity_Bps, latency_s);
    return id;
}

void Network::ensure_tables() {
    const size_t n = nodes_.size();
    if (routes_.size() != n * n) {
        routes_.assign(n * n, {});
        route_latency_.assign(n * n, 0.0);
        fast_routes_.assign(n * n, {});
        fast_latency_.assign(n * n, 0.0);
    }
}

void Network::set_fast_route(int src, int dst, std::vector<int> links) {
    const std::vector<int> primary = route(src, dst);
    set_route(src, dst, std::move(links));   // checks the chain, and fills the primary table
    const size_t i = static_cast<size_t>(src) * nodes_.size() + dst;
    fast_routes_[i] = std::move(routes_[i]);
    fast_latency_[i] = route_latency_[i];
    routes_[i].clear();
    if (!primary.empty()) set_route(src, dst, primary);
}

void Network::set_route(int src, int dst, std::vector<int> links) {
    ensure_tables();
    int at = src;
    double latency = 0;
    for (int l : links) {
        if (l < 0 || l >= num_links() || links_[l].from != at)
            throw InputError("network", 0, "route " + nodes_[src] + ">" + nodes_[dst], "links do not chain");
        at = links_[l].to;
        latency += links_[l].latency_s;
    }
    if (at != dst) throw InputError("network", 0, "route " + nodes_[src] + ">" + nodes_[dst], "route ends elsewhere");
    const size_t i = static_cast<size_t>(src) * nodes_.size() + dst;
    routes_[i] = std::move(links);
    route_latency_[i] = latency;
}

void Network::route_widest() {
    ensure_tables();
    const int n = num_nodes();
    std::vector<std::vector<int>> out(n);
    for (int l = 0; l < num_links(); ++l) out[links_[l].from].push_back(l);
    // Modified Dijkstra per source: maximise bottleneck, then minimise latency.
    for (int s = 0; s < n; ++s) {
        std::vector<double> width(n, 0), lat(n, std::numeric_limits<double>::infinity());
        std::vector<int> via(n, -1);
        std::vector<bool> done(n, false);
        width[s] = std::numeric_limits<double>::infinity();
        lat[s] = 0;
        for (int round = 0; round < n; ++round) {
            int u = -1;
            for (int v = 0; v < n; ++v) {
                if (done[v] || width[v] <= 0) continue;
                if (u < 0 || width[v] > width[u] || (width[v] == width[u] && lat[v] < lat[u])) u = v;
            }
            if (u < 0) break;
            done[u] = true;
            for (int l : out[u]) {
                const int v = links_[l].to;
                const double w = std::min(width[u], links_[l].capacity_Bps);
                const double t = lat[u] + links_[l].latency_s;
                if (!done[v] && (w > width[v] || (w == width[v] && t < lat[v]))) {
                    width[v] = w;
                    lat[v] = t;
                    via[v] = l;
                }
            }
        }
        for (int d = 0; d < n; ++d) {
            const size_t i = static_cast<size_t>(s) * n + d;
            if (d == s || !routes_[i].empty() || via[d] < 0) continue;
            std::vector<int> path;
            for (int v = d; v != s; v = links_[via[v]].from) path.push_back(via[v]);
            std::reverse(path.begin(), path.end());
            set_route(s, d, std::move(path));
        }
    }
}

const std::vector<int>& Network::route(int src, int dst, bool fast) const {
    const size_t n = nodes_.size();
    if (src < 0 || dst < 0 || static_cast<size_t>(src) >= n || static_cast<size_t>(dst) >= n || routes_.size() != n * n)
        return kNoRoute;
    const size_t i = static_cast<size_t>(src) * n + dst;
    return fast && !fast_routes_[i].empty() ? fast_routes_[i] : routes_[i];
}

double Network::route_latency_s(int src, int dst, bool fast) const {
    const size_t n = nodes_.size();
    if (routes_.size() != n * n || src == dst) return 0;
    const size_t i = static_cast<size_t>(src) * n + dst;
    return fast && !fast_routes_[i].empty() ? fast_latency_[i] : route_latency_[i];
}

Network Network::big_switch(int ports, double port_Bps) {
    Network net;
    for (int p = 0; p < ports; ++p) net.add_node("p" + std::to_string(p));
    // A fabric node joins all ports; routes are fixed as uplink + downlink.
    const int fabric = net.add_node("fabric");
    std::vector<int> up(ports), down(ports);
    for (int p = 0; p < ports; ++p) {
        up[p] = net.add_link(p, fabric, port_Bps, 0);
        down[p] = net.add_link(fabric, p, port_Bps, 0);
    }
    for (int a = 0; a < ports; ++a)
        for (int b = 0; b < ports; ++b)
            if (a != b) net.set_route(a, b, {up[a], down[b]});
    return net;
}

}  // namespace spiderflow::coflow
