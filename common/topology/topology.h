// The federation as plain data: clusters, their nodes/GPUs/NICs/switch tree, and the
// inter-cluster link graph with widest paths computed once (finalize()).
// Units are those of common/util/units.h: bytes, seconds, bytes per second.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace spiderflow {

struct Nic {
    std::string name;            // interface or HCA name as the node sees it: "eth0", "mlx5_0"
    std::string kind = "ethernet";  // "ib", "roce" or "ethernet"
    double bandwidth_Bps = 0;
    int numa = -1;               // NUMA node, -1 when unknown
};

// Per-GPU locality; only readers that see the hardware (hwloc) fill it.
struct GpuSlot {
    int index = 0;
    int numa = -1;
    int nvlink_domain = 0;       // GPUs with equal ids share NVLink/NVSwitch
    std::string nearest_nic;     // Nic::name closest to this GPU, empty when unknown
};

struct Node {
    std::string name;
    std::string gpu_type;        // catalog key, e.g. "A100-80GB"
    int gpus = 0;
    int nvlink_domain_size = 0;  // GPUs per NVLink domain; 1 = PCIe only; 0 = unknown (treat as gpus)
    std::vector<Nic> nics;
    std::vector<GpuSlot> gpu_slots;  // empty unless known
    std::string leaf_switch;     // switch the node hangs off; empty when the cluster has no tree

    // Bandwidth this node can send to other nodes of its cluster (sum of its NICs).
    double network_Bps() const;
    // GPUs per NVLink domain, the whole node when unknown, never more than the node has.
    int nvlink_domain_gpus() const;
};

// Where tensor-parallel groups may start on a node. The two rules agree whenever tp divides the
// domain size; otherwise `domain` packs more groups (tp 3 on 8-GPU domains: 0,3,8,11 against
// node's 0,3,9,12).
enum class TpAlign {
    // From the first GPU of each NVLink domain, never crossing one; none when tp is wider than
    // the domain. What the planners count and fill: TP traffic stays on NVLink.
    domain,
    // At multiples of tp from GPU 0, skipping groups that straddle a domain boundary; when tp
    // is wider than the domain, every such group, TP then crossing domains. What the sequential
    // layout takes, as it fills whatever degrees a user names.
    node,
};

// First GPU of each tensor-parallel group of tp consecutive GPUs on the node, ascending; empty
// for tp < 1.
std::vector<int> tp_group_first_gpus(const Node& node, int tp, TpAlign align = TpAlign::domain);

struct Switch {
    std::string name;
    std::vector<std::string> switches;  // child switches
    std::vector<std::string> nodes;     // nodes attached directly
    double uplink_Bps = 0;              // 0 = non-blocking / unknown
};

struct Cluster {
    std::string name;
    std::string region;
    std::vector<Node> nodes;
    std::vector<Switch> switches;
    // Node-to-node figures inside the cluster, used when NICs are not listed.
    double intra_bandwidth_Bps = 0;
    double intra_latency_s = 0;

    int total_gpus() const;
    int node_index(std::string_view node_name) const;  // -1 when absent

    // Indices into `nodes` in the order that planners fill and ranks are numbered: nodes sharing
    // a leaf switch consecutive, switch groups ordered by their first member, nodes by index
    // inside a group; a node without a switch is a group of its own. Readers need not list nodes
    // by switch (slurm.conf order is usually by name), so nothing may assume `nodes` is grouped.
    // Set by Topology::finalize(); throws std::logic_error before that, rather than answer
    // with an order that misses nodes.
    const std::vector<int>& node_order() const;

private:
    friend class Topology;
    std::vector<int> node_order_;
};

// An inter-cluster link; symmetric. a and b are indices into Topology::clusters.
struct Link {
    int a = -1;
    int b = -1;
    double bandwidth_Bps = 0;
    double latency_s = 0;
    // Where the figures came from when not from the topology file ("measured by
    // spiderflow-probe at 2026-12-06 18:40:02 UTC"), for a plan's text; never written to a file.
    std::string figure{};
};

// Best route between two clusters: widest path (maximal bottleneck bandwidth), ties broken by
// lower summed latency, then fewer hops. Unreachable pairs have bandwidth 0 and infinite
// latency. A cluster to itself: infinite bandwidth, zero latency, 0 hops (no WAN involved).
struct PathInfo {
    double bandwidth_Bps = 0;
    double latency_s = std::numeric_limits<double>::infinity();
    int hops = 0;
    bool reachable() const { return bandwidth_Bps > 0; }
};

// Which of the two routes a pair of clusters has: the widest (bulk transfers, the default
// everywhere) or the fastest, of least summed latency (ties: wider, then fewer hops), which suits
// small messages. They differ where a direct link is a little narrower than a detour: worldwide-8's
// frankfurt-ireland link (1.08 Gb/s, 24 ms) against the widest route via london, virginia and
// ohio (1.12 Gb/s, 178 ms).
enum class RouteKind { widest, fastest };
const char* to_string(RouteKind kind);

class Topology {
public:
    static constexpr int kFormatVersion = 1;

    std::string name;
    std::vector<Cluster> clusters;
    std::vector<Link> links;

    // Checks references (link ends, switch children) and computes all-pairs widest and fastest
    // paths.
    // Must be called after the data is filled and before path() is used. Throws InputError
    // naming the offending element, with `source` as the file name.
    void finalize(const std::string& source = "topology");

    bool finalized() const { return finalized_; }
    const PathInfo& path(int a, int b) const { return paths_[static_cast<size_t>(a) * clusters.size() + b]; }
    const PathInfo& path(int a, int b, RouteKind kind) const {
        return kind == RouteKind::widest ? path(a, b) : fast_paths_[static_cast<size_t>(a) * clusters.size() + b];
    }
    // Cluster indices along the widest path from a to b, both ends included; empty if unreachable.
    std::vector<int> route(int a, int b) const;
    std::vector<int> route(int a, int b, RouteKind kind) const;
    // Index into `links` of the link joining a and b directly, -1 when there is none.
    int link_between(int a, int b) const;
    // Indices into `links` along the widest path from a to b; empty if unreachable or a == b.
    // Crossings whose routes share a link share its bandwidth.
    std::vector<int> route_links(int a, int b) const;
    std::vector<int> route_links(int a, int b, RouteKind kind) const;
    int cluster_index(std::string_view cluster_name) const;  // -1 when absent
    int total_gpus() const;

private:
    bool finalized_ = false;
    std::vector<PathInfo> paths_;   // n*n, row = source
    // Interior clusters of each multi-hop route, concatenated; route_start_[a*n+b] is where the
    // a->b route's hops-1 interior clusters begin. Whole routes are stored because widest
    // paths lack optimal substructure: a next-hop table could not reproduce them.
    std::vector<int> route_nodes_;
    std::vector<uint32_t> route_start_;
    std::unordered_map<std::string, int> index_;
    std::unordered_map<uint64_t, int> link_index_;  // unordered cluster pair -> index in links
    // Fastest paths (fastest_paths.cpp). Least latency has optimal substructure, so one
    // predecessor per (source, cluster) rebuilds every route: fast_pred_[a*n+b] is the cluster
    // before b on the fastest a->b route.
    void compute_fastest_paths();
    std::vector<PathInfo> fast_paths_;
    std::vector<int> fast_pred_;
};

// How much quicker a route of more hops must move a transfer before it is taken over one of
// fewer: link figures are good to a few percent (spiderflow probe measured shaped links within
// 4.3% and 3.1%, tests/integration/test_probe.sh), so a detour that gains less is not known to
// gain at all, while it loads links that other crossings use and adds a relay site.
constexpr double kDetourMargin = 0.05;

// The one route rule (every kind of traffic, in the cost model, the flow simulator, the plan's
// text and the coflow levels; common/plan/plan_routes.h applies it per kind): of the pair's two
// routes, the one that moves `bytes` sent as `messages` messages one after another sooner
// (messages x latency + bytes / bottleneck), except that the one of more hops must be quicker
// by kDetourMargin. So latency-bound traffic (pipeline activations, one message each) takes the
// lowest-latency route with enough bandwidth, and bandwidth-bound traffic (a DP ring edge of
// gigabytes) the route that moves its bytes soonest, never a detour for a gain within the
// figures' error (worldwide-8's london-ireland DP stays on the direct 12 ms link instead of a
// 4.6% wider route of 164 ms). Widest when either is unreachable.
RouteKind route_for(const Topology& topology, int a, int b, double bytes, int messages);

}  // namespace spiderflow
