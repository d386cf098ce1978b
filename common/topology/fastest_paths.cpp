// Topology: all-pairs fastest paths (least summed latency; ties: wider bottleneck, then fewer
// hops). The label (latency, -bottleneck, hops) is isotone under extension, so one Dijkstra per
// source is exact, unlike the widest paths of topology.cpp.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <queue>
#include <tuple>

#include "common/topology/topology.h"

namespace spiderflow {

const char* to_string(RouteKind kind) { return kind == RouteKind::widest ? "widest" : "fastest"; }

RouteKind route_for(const Topology& topology, int a, int b, double bytes, int messages) {
    const PathInfo& wide = topology.path(a, b, RouteKind::widest);
    const PathInfo& fast = topology.path(a, b, RouteKind::fastest);
    if (!fast.reachable() || !wide.reachable()) return RouteKind::widest;
    auto time = [&](const PathInfo& p) { return messages * p.latency_s + bytes / p.bandwidth_Bps; };
    const double t_wide = time(wide), t_fast = time(fast);
    if (wide.hops == fast.hops) return t_fast < t_wide ? RouteKind::fastest : RouteKind::widest;
    // The route of more hops must be quicker by more than the figures' own error.
    const bool fast_is_shorter = fast.hops < wide.hops;
    const double t_short = fast_is_shorter ? t_fast : t_wide, t_long = fast_is_shorter ? t_wide : t_fast;
    const RouteKind shorter = fast_is_shorter ? RouteKind::fastest : RouteKind::widest;
    const RouteKind longer = fast_is_shorter ? RouteKind::widest : RouteKind::fastest;
    return t_long < t_short * (1 - kDetourMargin) ? longer : shorter;
}

namespace {

struct Label {
    double latency = std::numeric_limits<double>::infinity();
    double bottleneck = 0;
    int hops = 0;
    bool better_than(const Label& o) const {
        return std::tie(latency, o.bottleneck, hops) < std::tie(o.latency, bottleneck, o.hops);
    }
};

}  // namespace

void Topology::compute_fastest_paths() {
    const size_t n = clusters.size();
    struct Edge {
        int to;
        double bw, lat;
    };
    std::vector<std::vector<Edge>> adj(n);
    for (const Link& l : links) {
        adj[static_cast<size_t>(l.a)].push_back({l.b, l.bandwidth_Bps, l.latency_s});
        adj[static_cast<size_t>(l.b)].push_back({l.a, l.bandwidth_Bps, l.latency_s});
    }
    fast_paths_.assign(n * n, PathInfo{});
    fast_pred_.assign(n * n, -1);
    std::vector<Label> best(n);
    std::vector<char> done(n);
    using Item = std::tuple<double, double, int, int>;  // latency, -bottleneck, hops, cluster
    for (size_t s = 0; s < n; ++s) {
        std::fill(best.begin(), best.end(), Label{});
        std::fill(done.begin(), done.end(), 0);
        best[s] = Label{0, std::numeric_limits<double>::infinity(), 0};
        std::priority_queue<Item, std::vector<Item>, std::greater<>> queue;
        queue.emplace(0.0, -best[s].bottleneck, 0, static_cast<int>(s));
        while (!queue.empty()) {
            const int u = std::get<3>(queue.top());
            queue.pop();
            if (done[static_cast<size_t>(u)]) continue;
            done[static_cast<size_t>(u)] = 1;
            const Label& lu = best[static_cast<size_t>(u)];
            for (const Edge& e : adj[static_cast<size_t>(u)]) {
                const Label cand{lu.latency + e.lat, std::min(lu.bottleneck, e.bw), lu.hops + 1};
                if (done[static_cast<size_t>(e.to)] || !cand.better_than(best[static_cast<size_t>(e.to)])) continue;
                best[static_cast<size_t>(e.to)] = cand;
                fast_pred_[s * n + static_cast<size_t>(e.to)] = u;
                queue.emplace(cand.latency, -cand.bottleneck, cand.hops, e.to);
            }
        }
        for (size_t t = 0; t < n; ++t) {
            PathInfo& p = fast_paths_[s * n + t];
            if (t == s) {
                p = PathInfo{std::numeric_limits<double>::infinity(), 0, 0};
            } else if (best[t].bottleneck > 0) {
                p = PathInfo{best[t].bottleneck, best[t].latency, best[t].hops};
            }
        }
    }
}

std::vector<int> Topology::route(int a, int b, RouteKind kind) const {
    if (kind == RouteKind::widest) return route(a, b);
    const int n = static_cast<int>(clusters.size());
    if (!finalized_ || a < 0 || b < 0 || a >= n || b >= n) return {};
    if (a == b) return {a};
    if (!fast_paths_[static_cast<size_t>(a) * n + b].reachable()) return {};
    std::vector<int> back{b};
    for (int v = fast_pred_[static_cast<size_t>(a) * n + b]; v != -1; v = fast_pred_[static_cast<size_t>(a) * n + v])
        back.push_back(v);
    return {back.rbegin(), back.rend()};
}

}  // namespace spiderflow
