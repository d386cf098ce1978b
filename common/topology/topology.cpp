// Topology: reference checks and all-pairs widest paths.
//
// Widest paths with a latency tie-break are not a plain Dijkstra problem: the label
// (bottleneck, latency) is not isotone, so a per-source lexicographic Dijkstra can return a
// widest path that is not the fastest one. We compute them exactly instead, Kruskal style:
// adding links in order of decreasing bandwidth, two clusters first become connected at their
// widest-path bandwidth w. At that moment the best route between them is the lowest-latency
// route over links of bandwidth >= w, which one Dijkstra on that subgraph gives. Dijkstras run
// from the clusters of the smaller merged components only, so each cluster is a source
// O(log n) times (bench/topology_bench: about a second for the generator's 1024-cluster graph
// on a busy 2-core machine, well under for the shipped examples).
#include "common/topology/topology.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <queue>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#include "common/util/errors.h"

namespace spiderflow {

double Node::network_Bps() const {
    double sum = 0;
    for (const auto& nic : nics) sum += nic.bandwidth_Bps;
    return sum;
}

int Node::nvlink_domain_gpus() const {
    return nvlink_domain_size > 0 ? std::min(nvlink_domain_size, gpus) : gpus;
}

std::vector<int> tp_group_first_gpus(const Node& node, int tp, TpAlign align) {
    std::vector<int> firsts;
    if (tp < 1 || node.gpus <= 0) return firsts;
    const int d = node.nvlink_domain_gpus();
    if (align == TpAlign::domain) {
        if (tp > d) return firsts;
        // Whole domains, then a possibly smaller last one.
        for (int start = 0; start + tp <= node.gpus; start += d)
            for (int off = 0; off + tp <= std::min(d, node.gpus - start); off += tp) firsts.push_back(start + off);
        return firsts;
    }
    for (int g = 0; g + tp <= node.gpus; g += tp)
        if (tp > d || g / d == (g + tp - 1) / d) firsts.push_back(g);
    return firsts;
}

int Cluster::total_gpus() const {
    int sum = 0;
    for (const auto& n : nodes) sum += n.gpus;
    return sum;
}

int Cluster::node_index(std::string_view node_name) const {
    for (size_t i = 0; i < nodes.size(); ++i) {
        if (nodes[i].name == node_name) return static_cast<int>(i);
    }
    return -1;
}

const std::vector<int>& Cluster::node_order() const {
    if (node_order_.size() != nodes.size())
        throw std::logic_error("cluster '" + name + "': node order asked before Topology::finalize()");
    return node_order_;
}

int Topology::cluster_index(std::string_view cluster_name) const {
    if (finalized_) {
        auto it = index_.find(std::string(cluster_name));
        return it == index_.end() ? -1 : it->second;
    }
    for (size_t i = 0; i < clusters.size(); ++i) {
        if (clusters[i].name == cluster_name) return static_cast<int>(i);
    }
    return -1;
}

int Topology::total_gpus() const {
    int sum = 0;
    for (const auto& c : clusters) sum += c.total_gpus();
    return sum;
}

namespace {

std::string at(const std::string& base, size_t i) { return base + "[" + std::to_string(i) + "]"; }

// Node names unique, switch references resolvable, counts sane.
void check_cluster(const Cluster& c, size_t ci, const std::string& source) {
    const std::string cpath = at("clusters", ci);
    if (!std::isfinite(c.intra_bandwidth_Bps) || c.intra_bandwidth_Bps < 0) {
        throw InputError(source, 0, cpath + ".intra_gbps", "must be a finite number >= 0");
    }
    if (!std::isfinite(c.intra_latency_s) || c.intra_latency_s < 0) {
        throw InputError(source, 0, cpath + ".intra_latency_ms", "must be a finite number >= 0");
    }
    std::unordered_map<std::string, size_t> nodes;
    for (size_t ni = 0; ni < c.nodes.size(); ++ni) {
        const Node& n = c.nodes[ni];
        const std::string npath = at(cpath + ".nodes", ni);
        if (n.name.empty()) throw InputError(source, 0, npath + ".name", "node name is empty");
        if (!nodes.emplace(n.name, ni).second) {
            throw InputError(source, 0, npath + ".name",
                             "duplicate node name '" + n.name + "' in cluster '" + c.name + "'");
        }
        if (n.gpus < 0) throw InputError(source, 0, npath + ".gpus", "must be >= 0");
        if (n.nvlink_domain_size < 0 || n.nvlink_domain_size > std::max(n.gpus, 1)) {
            throw InputError(source, 0, npath + ".nvlink_domain",
                             "must be between 0 and the node's GPU count (" + std::to_string(n.gpus) + ")");
        }
        for (size_t k = 0; k < n.nics.size(); ++k) {
            const double bw = n.nics[k].bandwidth_Bps;
            if (!std::isfinite(bw) || bw <= 0) {
                throw InputError(source, 0, at(npath + ".nics", k) + ".gbps", "must be a finite number > 0");
            }
        }
    }
    std::unordered_map<std::string, size_t> switches;
    for (size_t si = 0; si < c.switches.size(); ++si) {
        const std::string& s = c.switches[si].name;
        if (s.empty()) throw InputError(source, 0, at(cpath + ".switches", si) + ".name", "switch name is empty");
        if (!switches.emplace(s, si).second) {
            throw InputError(source, 0, at(cpath + ".switches", si) + ".name",
                             "duplicate switch name '" + s + "' in cluster '" + c.name + "'");
        }
    }
    for (size_t si = 0; si < c.switches.size(); ++si) {
        const Switch& s = c.switches[si];
        const std::string spath = at(cpath + ".switches", si);
        if (!std::isfinite(s.uplink_Bps) || s.uplink_Bps < 0) {
            throw InputError(source, 0, spath + ".uplink_gbps", "must be a finite number >= 0");
        }
        for (size_t k = 0; k < s.switches.size(); ++k) {
            if (s.switches[k] == s.name) {
                throw InputError(source, 0, at(spath + ".switches", k), "switch '" + s.name + "' lists itself as a child");
            }
            if (!switches.count(s.switches[k])) {
                throw InputError(source, 0, at(spath + ".switches", k),
                                 "unknown switch '" + s.switches[k] + "' in cluster '" + c.name + "'");
            }
        }
        for (size_t k = 0; k < s.nodes.size(); ++k) {
            if (!nodes.count(s.nodes[k])) {
                throw InputError(source, 0, at(spath + ".nodes", k),
                                 "unknown node '" + s.nodes[k] + "' in cluster '" + c.name + "'");
            }
        }
    }
    for (size_t ni = 0; ni < c.nodes.size(); ++ni) {
        const std::string& leaf = c.nodes[ni].leaf_switch;
        if (!leaf.empty() && !switches.count(leaf)) {
            throw InputError(source, 0, at(cpath + ".nodes", ni) + ".switch",
                             "unknown switch '" + leaf + "' in cluster '" + c.name + "'");
        }
    }
}

std::vector<int> switch_grouped_order(const Cluster& c) {
    std::unordered_map<std::string, int> first_of_switch;
    std::vector<int> group(c.nodes.size());
    for (size_t n = 0; n < c.nodes.size(); ++n) {
        const std::string& sw = c.nodes[n].leaf_switch;
        const int self = static_cast<int>(n);
        group[n] = sw.empty() ? self : first_of_switch.try_emplace(sw, self).first->second;
    }
    std::vector<int> order(c.nodes.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return group[a] < group[b]; });
    return order;
}

struct Edge {
    int to;
    double bw;
    double lat;
};

struct UnionFind {
    std::vector<int> parent;
    explicit UnionFind(int n) : parent(static_cast<size_t>(n)) { std::iota(parent.begin(), parent.end(), 0); }
    int find(int x) {
        while (parent[x] != x) {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        return x;
    }
};

uint64_t unordered_pair_key(int a, int b) {
    return (static_cast<uint64_t>(std::min(a, b)) << 32) | static_cast<uint32_t>(std::max(a, b));
}

}  // namespace

void Topology::finalize(const std::string& source) {
    finalized_ = false;
    const int n = static_cast<int>(clusters.size());
    index_.clear();
    for (int i = 0; i < n; ++i) {
        const std::string& cname = clusters[i].name;
        if (cname.empty()) throw InputError(source, 0, at("clusters", i) + ".name", "cluster name is empty");
        if (!index_.emplace(cname, i).second) {
            throw InputError(source, 0, at("clusters", i) + ".name", "duplicate cluster name '" + cname + "'");
        }
        check_cluster(clusters[i], static_cast<size_t>(i), source);
        clusters[i].node_order_ = switch_grouped_order(clusters[i]);
    }

    std::vector<std::vector<Edge>> adj(static_cast<size_t>(n));
    link_index_.clear();
    for (size_t li = 0; li < links.size(); ++li) {
        const Link& l = links[li];
        const std::string lpath = at("links", li);
        if (l.a < 0 || l.a >= n) throw InputError(source, 0, lpath + ".a", "unknown cluster");
        if (l.b < 0 || l.b >= n) throw InputError(source, 0, lpath + ".b", "unknown cluster");
        if (l.a == l.b) {
            throw InputError(source, 0, lpath, "link from cluster '" + clusters[l.a].name + "' to itself");
        }
        if (!std::isfinite(l.bandwidth_Bps) || l.bandwidth_Bps <= 0) {
            throw InputError(source, 0, lpath + ".gbps", "bandwidth must be a finite number > 0");
        }
        if (!std::isfinite(l.latency_s) || l.latency_s < 0) {
            throw InputError(source, 0, lpath + ".latency_ms", "latency must be a finite number >= 0");
        }
        const uint64_t key = unordered_pair_key(l.a, l.b);
        if (auto [it, fresh] = link_index_.emplace(key, static_cast<int>(li)); !fresh) {
            throw InputError(source, 0, lpath,
                             "duplicate link between '" + clusters[l.a].name + "' and '" + clusters[l.b].name +
                                 "' (first at links[" + std::to_string(it->second) + "])");
        }
        adj[l.a].push_back({l.b, l.bandwidth_Bps, l.latency_s});
        adj[l.b].push_back({l.a, l.bandwidth_Bps, l.latency_s});
    }
    // Widest first, so a Dijkstra restricted to bandwidth >= w stops scanning a list early.
    for (auto& edges : adj) {
        std::sort(edges.begin(), edges.end(), [](const Edge& x, const Edge& y) { return x.bw > y.bw; });
    }

    const size_t nn = static_cast<size_t>(n) * static_cast<size_t>(n);
    paths_.assign(nn, PathInfo{});
    route_start_.assign(nn, 0);
    route_nodes_.clear();
    for (int i = 0; i < n; ++i) {
        PathInfo& self = paths_[static_cast<size_t>(i) * n + i];
        self.bandwidth_Bps = std::numeric_limits<double>::infinity();
        self.latency_s = 0;
        self.hops = 0;
    }

    // Links in order of decreasing bandwidth, grouped by equal bandwidth.
    std::vector<size_t> order(links.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(),
              [&](size_t x, size_t y) { return links[x].bandwidth_Bps > links[y].bandwidth_Bps; });

    UnionFind uf(n);
    std::vector<std::vector<int>> members(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) members[i] = {i};

    // Dijkstra scratch, reset only where touched.
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<double> dist(static_cast<size_t>(n), inf);
    std::vector<int> hops(static_cast<size_t>(n), 0);
    std::vector<int> pred(static_cast<size_t>(n), -1);
    std::vector<char> done(static_cast<size_t>(n), 0);
    std::vector<int> touched;
    std::vector<int> owner(static_cast<size_t>(n), -1);  // old component root of each node in a merge
    using Item = std::tuple<double, int, int>;           // latency, hops, node

    for (size_t g = 0; g < order.size();) {
        const double w = links[order[g]].bandwidth_Bps;
        size_t h = g;
        while (h < order.size() && links[order[h]].bandwidth_Bps == w) ++h;
        // Old components touched by this batch.
        std::vector<int> roots;
        for (size_t k = g; k < h; ++k) {
            roots.push_back(uf.find(links[order[k]].a));
            roots.push_back(uf.find(links[order[k]].b));
        }
        std::sort(roots.begin(), roots.end());
        roots.erase(std::unique(roots.begin(), roots.end()), roots.end());
        for (int r : roots) {
            for (int v : members[r]) owner[v] = r;
        }
        // Union; remember which old components end up together.
        for (size_t k = g; k < h; ++k) {
            int ra = uf.find(links[order[k]].a), rb = uf.find(links[order[k]].b);
            if (ra != rb) uf.parent[ra] = rb;
        }
        std::unordered_map<int, std::vector<int>> merged;  // new root -> old roots
        for (int r : roots) merged[uf.find(r)].push_back(r);

        for (auto& [new_root, olds] : merged) {
            if (olds.size() < 2) continue;  // parallel-bandwidth link inside one component: no new pairs
            // Sources: every cluster outside the largest old component. Each cross pair has at
            // least one end among them, and a route serves both directions.
            auto largest = std::max_element(olds.begin(), olds.end(), [&](int x, int y) {
                return members[x].size() < members[y].size();
            });
            const int big = *largest;
            for (int r : olds) {
                if (r == big) continue;
                for (int s : members[r]) {
                    // Dijkstra on latency (then hops) over links of bandwidth >= w.
                    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> pq;
                    dist[s] = 0;
                    hops[s] = 0;
                    pred[s] = -1;
                    touched.push_back(s);
                    pq.emplace(0.0, 0, s);
                    while (!pq.empty()) {
                        auto [d, hp, u] = pq.top();
                        pq.pop();
                        if (done[u]) continue;
                        done[u] = 1;
                        for (const Edge& e : adj[u]) {
                            if (e.bw < w) break;
                            const double nd = d + e.lat;
                            const int nh = hp + 1;
                            if (nd < dist[e.to] || (nd == dist[e.to] && nh < hops[e.to])) {
                                if (dist[e.to] == inf) touched.push_back(e.to);
                                dist[e.to] = nd;
                                hops[e.to] = nh;
                                pred[e.to] = u;
                                pq.emplace(nd, nh, e.to);
                            }
                        }
                    }
                    // Record pairs whose ends were in different old components.
                    for (int t : touched) {
                        if (owner[t] == owner[s] || owner[t] < 0) continue;
                        // Pairs between two non-largest components are met from both ends; keep
                        // the first.
                        PathInfo& st = paths_[static_cast<size_t>(s) * n + t];
                        if (st.bandwidth_Bps > 0) continue;
                        PathInfo info;
                        info.bandwidth_Bps = w;
                        info.latency_s = dist[t];
                        info.hops = hops[t];
                        st = info;
                        paths_[static_cast<size_t>(t) * n + s] = info;
                        if (info.hops > 1) {
                            // Interior from t back to s, i.e. the t->s route; reversed for s->t.
                            const uint32_t ts = static_cast<uint32_t>(route_nodes_.size());
                            for (int v = pred[t]; v != s; v = pred[v]) route_nodes_.push_back(v);
                            const uint32_t st_start = static_cast<uint32_t>(route_nodes_.size());
                            for (uint32_t k = st_start; k > ts; --k) route_nodes_.push_back(route_nodes_[k - 1]);
                            route_start_[static_cast<size_t>(t) * n + s] = ts;
                            route_start_[static_cast<size_t>(s) * n + t] = st_start;
                        }
                    }
                    for (int t : touched) {
                        dist[t] = inf;
                        hops[t] = 0;
                        pred[t] = -1;
                        done[t] = 0;
                    }
                    touched.clear();
                }
            }
            // Fold member lists into the new root.
            std::vector<int>& dst = members[new_root];
            for (int r : olds) {
                if (r == new_root) continue;
                dst.insert(dst.end(), members[r].begin(), members[r].end());
                members[r].clear();
                members[r].shrink_to_fit();
            }
        }
        for (int r : roots) {
            for (int v : members[uf.find(r)]) owner[v] = -1;
        }
        g = h;
    }
    compute_fastest_paths();
    finalized_ = true;
}

std::vector<int> Topology::route(int a, int b) const {
    const int n = static_cast<int>(clusters.size());
    if (!finalized_ || a < 0 || b < 0 || a >= n || b >= n) return {};
    if (a == b) return {a};
    const size_t k = static_cast<size_t>(a) * n + b;
    const PathInfo& p = paths_[k];
    if (!p.reachable()) return {};
    std::vector<int> out{a};
    if (p.hops > 1) {
        const auto first = route_nodes_.begin() + route_start_[k];
        out.insert(out.end(), first, first + (p.hops - 1));
    }
    out.push_back(b);
    return out;
}

int Topology::link_between(int a, int b) const {
    auto it = link_index_.find(unordered_pair_key(a, b));
    return it == link_index_.end() ? -1 : it->second;
}

std::vector<int> Topology::route_links(int a, int b) const { return route_links(a, b, RouteKind::widest); }

std::vector<int> Topology::route_links(int a, int b, RouteKind kind) const {
    const std::vector<int> hops = route(a, b, kind);
    std::vector<int> out;
    for (size_t i = 0; i + 1 < hops.size(); ++i) out.push_back(link_between(hops[i], hops[i + 1]));
    return out;
}

}  // namespace spiderflow
