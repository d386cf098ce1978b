#include "common/site/site_state.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <type_traits>

#include "common/site/topology_hash.h"
#include "common/util/errors.h"

namespace spiderflow {
namespace {

constexpr const char* kSource = "site state";

[[noreturn]] void fail(const std::string& field, const std::string& what) { throw InputError(kSource, 0, field, what); }

std::string window_text(SiteTime start, SiteTime end) { return "from " + time_text(start) + " to " + time_text(end); }

}  // namespace

namespace {

// What every state over one topology shares: its hash and node index. Made once per topology
// object and kept while any state over it lives: a broker holds a state per cluster over the
// whole federation, and each one's own copy of the index cost a megabyte at 1,024 clusters.
struct TopologyTables {
    std::string hash;
    std::vector<std::unordered_map<std::string, int>> index;  // [cluster] name -> node
};

std::shared_ptr<const TopologyTables> tables_of(const Topology& topology) {
    static std::mutex mu;
    static std::map<const Topology*, std::weak_ptr<const TopologyTables>> made;
    const std::lock_guard<std::mutex> lock(mu);
    // A live entry means a live state over this topology object, which keeps the object (and so
    // its address) from being reused by another.
    if (auto live = made[&topology].lock()) return live;
    auto tables = std::make_shared<TopologyTables>();
    tables->hash = spiderflow::topology_hash(topology);
    tables->index.resize(topology.clusters.size());
    for (size_t c = 0; c < topology.clusters.size(); ++c) {
        const auto& nodes = topology.clusters[c].nodes;
        for (size_t n = 0; n < nodes.size(); ++n) tables->index[c].emplace(nodes[n].name, static_cast<int>(n));
    }
    std::erase_if(made, [](const auto& entry) { return entry.second.expired(); });
    made[&topology] = tables;
    return tables;
}

}  // namespace

SiteState::SiteState(std::shared_ptr<const Topology> topology) : topology_(std::move(topology)) {
    if (!topology_ || !topology_->finalized()) fail("", "needs a finalized topology");
    const std::shared_ptr<const TopologyTables> tables = tables_of(*topology_);
    hash_ = std::shared_ptr<const std::string>(tables, &tables->hash);
    node_index_ = std::shared_ptr<const std::vector<std::unordered_map<std::string, int>>>(tables, &tables->index);
    nodes_.resize(topology_->clusters.size());
}

const NodeUse SiteState::kUntouched{};

NodeUse& SiteState::mutable_use(NodeRef ref) {
    auto& cluster = nodes_[static_cast<size_t>(ref.cluster)];
    if (cluster.empty()) cluster.resize(topology_->clusters[static_cast<size_t>(ref.cluster)].nodes.size());
    return cluster[static_cast<size_t>(ref.node)];
}

// ---- lookups ----

std::optional<NodeRef> SiteState::lookup(const NodeName& name) const {
    const int c = topology_->cluster_index(name.cluster);
    if (c < 0) return std::nullopt;
    const auto& idx = (*node_index_)[static_cast<size_t>(c)];
    auto it = idx.find(name.node);
    if (it == idx.end()) return std::nullopt;
    return NodeRef{c, it->second};
}

std::string SiteState::unknown_node_text(const NodeName& name) const {
    if (topology_->cluster_index(name.cluster) < 0) {
        return "unknown cluster '" + name.cluster + "' (node '" + name.text() + "') in topology '" + topology_->name +
               "'";
    }
    return "unknown node '" + name.node + "' in cluster '" + name.cluster + "'";
}

NodeRef SiteState::find(const NodeName& name) const {
    if (auto ref = lookup(name)) return *ref;
    fail("", unknown_node_text(name));
}

NodeName SiteState::name_of(NodeRef ref) const {
    const Cluster& c = topology_->clusters[static_cast<size_t>(ref.cluster)];
    return {c.name, c.nodes[static_cast<size_t>(ref.node)].name};
}

// ---- queries ----

int SiteState::used_gpus(NodeRef ref, SiteTime t) const {
    int used = 0;
    for (const UsageSpan& s : use(ref).spans) {
        if (s.start <= t && t < s.end) used += s.gpus;
    }
    return used;
}

int SiteState::peak_used(NodeRef ref, SiteTime start, SiteTime end) const {
    // Usage only rises where a span starts, so the peak over [start, end) is reached at start
    // or at the start of a span inside the window.
    const auto& spans = use(ref).spans;
    int peak = used_gpus(ref, start);
    for (const UsageSpan& s : spans) {
        if (s.start > start && s.start < end) peak = std::max(peak, used_gpus(ref, s.start));
    }
    return peak;
}

int SiteState::capacity(NodeRef ref) const {
    return topology_->clusters[static_cast<size_t>(ref.cluster)].nodes[static_cast<size_t>(ref.node)].gpus;
}

int SiteState::free_gpus(NodeRef ref, SiteTime t) const {
    if (use(ref).state != NodeState::up) return 0;
    return std::max(0, capacity(ref) - used_gpus(ref, t));
}

int SiteState::free_gpus(int cluster, SiteTime t) const {
    int sum = 0;
    const int n = static_cast<int>(topology_->clusters[static_cast<size_t>(cluster)].nodes.size());
    for (int i = 0; i < n; ++i) sum += free_gpus(NodeRef{cluster, i}, t);
    return sum;
}

int SiteState::free_gpus_between(NodeRef ref, SiteTime start, SiteTime end) const {
    if (use(ref).state != NodeState::up) return 0;
    return std::max(0, capacity(ref) - peak_used(ref, start, end));
}

std::optional<LinkFigure> SiteState::effective_link(int a, int b) const {
    const int li = topology_->link_between(a, b);
    if (li < 0) return std::nullopt;
    if (auto it = measured_.find(li); it != measured_.end()) {
        const LinkMeasurement& m = it->second;
        return LinkFigure{m.bandwidth_Bps, m.latency_s, true, m.timestamp, m.source};
    }
    const Link& l = topology_->links[static_cast<size_t>(li)];
    return LinkFigure{l.bandwidth_Bps, l.latency_s, false, 0, ""};
}

// ---- mutations ----

void SiteState::check_shares(const std::string& what, const std::vector<NodeShare>& nodes, SiteTime start,
                             SiteTime end, bool require_up, std::vector<NodeRef>& refs) const {
    if (start >= end) fail(what, "empty time window " + window_text(start, end));
    if (nodes.empty()) fail(what, "names no nodes");
    refs.clear();
    for (const NodeShare& share : nodes) {
        const auto ref = lookup(share.node);
        if (!ref) fail(what, unknown_node_text(share.node));
        for (const NodeRef& seen : refs) {
            if (seen.cluster == ref->cluster && seen.node == ref->node) {
                fail(what, "node " + share.node.text() + " listed twice");
            }
        }
        refs.push_back(*ref);
        if (share.gpus < 0 || share.cores < 0) fail(what, "node " + share.node.text() + ": negative GPU or core count");
        if (share.gpus == 0 && share.cores == 0) fail(what, "node " + share.node.text() + ": asks for no GPUs and no cores");
        const NodeUse& u = use(*ref);
        if (require_up && u.state != NodeState::up) {
            fail(what, "node " + share.node.text() + " is " + to_string(u.state) +
                           (u.reason.empty() ? "" : " (" + u.reason + ")"));
        }
        const int cap = capacity(*ref);
        const int free = std::max(0, cap - peak_used(*ref, start, end));
        if (share.gpus > free) {
            fail(what, "node " + share.node.text() + " asks " + std::to_string(share.gpus) + " GPUs, " +
                           std::to_string(free) + " of " + std::to_string(cap) + " free " + window_text(start, end));
        }
    }
}

void SiteState::add_spans(const std::vector<NodeShare>& nodes, const std::vector<NodeRef>& refs, SiteTime start,
                          SiteTime end, bool reservation, const std::string& owner) {
    for (size_t i = 0; i < nodes.size(); ++i) {
        mutable_use(refs[i]).spans.push_back(
            UsageSpan{start, end, nodes[i].gpus, nodes[i].cores, reservation, owner});
    }
}

void SiteState::remove_spans(const std::vector<NodeShare>& nodes, bool reservation, const std::string& owner) {
    for (const NodeShare& share : nodes) {
        const NodeRef ref = find(share.node);  // resolvable: checked when the spans were added
        auto& spans = mutable_use(ref).spans;
        std::erase_if(spans, [&](const UsageSpan& s) { return s.reservation == reservation && s.owner == owner; });
    }
}

void SiteState::allocate(const JobAllocation& allocation) {
    const std::string what = "job '" + allocation.job + "'";
    if (allocation.job.empty()) fail("job", "job id is empty");
    if (jobs_.count(allocation.job)) fail(what, "already holds an allocation (release it first)");
    std::vector<NodeRef> refs;
    check_shares(what, allocation.nodes, allocation.start, allocation.end, true, refs);
    add_spans(allocation.nodes, refs, allocation.start, allocation.end, false, allocation.job);
    jobs_.emplace(allocation.job, allocation);
    ++epoch_;
}

void SiteState::allocate(const std::string& job, const std::vector<NodeShare>& nodes, SiteTime start, SiteTime end) {
    allocate(JobAllocation{job, start, end, nodes});
}

void SiteState::release(const std::string& job) {
    auto it = jobs_.find(job);
    if (it == jobs_.end()) fail("job '" + job + "'", "holds no allocation");
    remove_spans(it->second.nodes, false, job);
    jobs_.erase(it);
    ++epoch_;
}

void SiteState::set_node_state(const NodeName& node, NodeState state, const std::string& reason,
                               const std::optional<std::vector<std::string>>& features) {
    const auto ref = lookup(node);
    if (!ref) fail("node", unknown_node_text(node));
    if (features) {
        for (const auto& f : *features) {
            if (f.empty()) fail("node " + node.text(), "empty feature name");
        }
    }
    NodeUse& u = mutable_use(*ref);
    u.state = state;
    u.reason = reason;
    if (features) u.features = *features;
    ++epoch_;
}

void SiteState::add_reservation(const Reservation& reservation) {
    const std::string what = "reservation '" + reservation.name + "'";
    if (reservation.name.empty()) fail("reservation", "reservation name is empty");
    if (reservations_.count(reservation.name)) fail(what, "already exists (remove it first)");
    std::vector<NodeRef> refs;
    check_shares(what, reservation.nodes, reservation.start, reservation.end, false, refs);
    add_spans(reservation.nodes, refs, reservation.start, reservation.end, true, reservation.name);
    reservations_.emplace(reservation.name, reservation);
    ++epoch_;
}

void SiteState::remove_reservation(const std::string& name) {
    auto it = reservations_.find(name);
    if (it == reservations_.end()) fail("reservation '" + name + "'", "does not exist");
    remove_spans(it->second.nodes, true, name);
    reservations_.erase(it);
    ++epoch_;
}

void SiteState::measure_link(const LinkMeasurement& m) {
    const std::string what = "link " + m.a + "-" + m.b;
    const int a = topology_->cluster_index(m.a);
    const int b = topology_->cluster_index(m.b);
    if (a < 0) fail(what, "unknown cluster '" + m.a + "'");
    if (b < 0) fail(what, "unknown cluster '" + m.b + "'");
    const int li = topology_->link_between(a, b);
    // Measurements refine the links the topology declares; a new link would change the
    // link graph that plans and route_links() indices refer to.
    if (li < 0) fail(what, "no direct link between '" + m.a + "' and '" + m.b + "' in topology '" + topology_->name + "'");
    if (!std::isfinite(m.bandwidth_Bps) || m.bandwidth_Bps <= 0) fail(what, "bandwidth must be a finite number > 0");
    if (!std::isfinite(m.latency_s) || m.latency_s < 0) fail(what, "latency must be a finite number >= 0");
    LinkMeasurement stored = m;
    // Stored in the topology's own orientation, so equal states write equal snapshots.
    const Link& l = topology_->links[static_cast<size_t>(li)];
    stored.a = topology_->clusters[static_cast<size_t>(l.a)].name;
    stored.b = topology_->clusters[static_cast<size_t>(l.b)].name;
    measured_[li] = std::move(stored);
    ++epoch_;
}

int SiteState::forget_measurements_before(SiteTime t) {
    const size_t before = measured_.size();
    std::erase_if(measured_, [t](const auto& entry) { return entry.second.timestamp < t; });
    if (measured_.size() != before) ++epoch_;
    return static_cast<int>(before - measured_.size());
}

void SiteState::apply(const SiteDelta& delta) {
    std::visit(
        [this](const auto& d) {
            using T = std::decay_t<decltype(d)>;
            if constexpr (std::is_same_v<T, NodeStateChanged>) set_node_state(d.node, d.state, d.reason, d.features);
            else if constexpr (std::is_same_v<T, JobAllocated>) allocate(d.allocation);
            else if constexpr (std::is_same_v<T, JobReleased>) release(d.job);
            else if constexpr (std::is_same_v<T, ReservationAdded>) add_reservation(d.reservation);
            else if constexpr (std::is_same_v<T, ReservationRemoved>) remove_reservation(d.name);
            else if constexpr (std::is_same_v<T, LinkMeasured>) measure_link(d.measurement);
        },
        delta);
}

}  // namespace spiderflow
