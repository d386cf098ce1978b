// SiteState: what is free on each cluster, over the static topology. The topology (capacity)
// is shared and never copied; beside each node sits a small usage overlay (state, features,
// the allocations and reservations that hold its GPUs over time), the way Slurm's cons_tres
// keeps node_use_record_t beside its node records and flux-sched keeps a schedule per vertex.
// clone() copies only the overlay, so a what-if placement costs one overlay copy.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/site/site_delta.h"
#include "common/site/site_types.h"
#include "common/topology/topology.h"

namespace spiderflow {

// Indices of a node in the topology.
struct NodeRef {
    int cluster = -1;
    int node = -1;
};

// One holder of a node's GPUs over time: an allocation (owner = job) or a reservation.
struct UsageSpan {
    SiteTime start = 0;
    SiteTime end = kForever;
    int gpus = 0;
    int cores = 0;
    bool reservation = false;
    std::string owner;
};

// The overlay of one node.
struct NodeUse {
    NodeState state = NodeState::up;
    std::string reason;
    std::vector<std::string> features;
    std::vector<UsageSpan> spans;    // in the order they were added
};

// An inter-cluster link figure as the planner should see it.
struct LinkFigure {
    double bandwidth_Bps = 0;
    double latency_s = 0;
    bool measured = false;           // false: the topology's nominal figure
    SiteTime timestamp = 0;          // of the measurement
    std::string source;              // of the measurement
};

class SiteState {
public:
    // The topology must be finalized. Throws InputError otherwise.
    explicit SiteState(std::shared_ptr<const Topology> topology);

    const Topology& topology() const { return *topology_; }
    const std::shared_ptr<const Topology>& shared_topology() const { return topology_; }
    // Content hash of the topology (topology_hash()), computed once and shared by clones.
    const std::string& topology_hash() const { return *hash_; }

    // Changes with every applied update (each mutation below adds one). A cache key within
    // one line of states: a clone starts at its original's epoch and counts on its own.
    uint64_t epoch() const { return epoch_; }

    // A what-if copy: same topology object, its own overlay and epoch.
    SiteState clone() const { return *this; }

    // Mutations. Each validates first and changes nothing when it throws InputError (naming
    // the job, reservation or node); each successful one bumps the epoch.
    // Refuses: unknown node, node not up, GPUs beyond what is free over [start, end), a job
    // id already held, a node listed twice, an empty or reversed time window.
    void allocate(const JobAllocation& allocation);
    void allocate(const std::string& job, const std::vector<NodeShare>& nodes, SiteTime start,
                  SiteTime end = kForever);
    void release(const std::string& job);   // refuses an unknown job
    // Node state; a drained/down node keeps its jobs but takes no new ones. features, when
    // given, replace the node's features.
    void set_node_state(const NodeName& node, NodeState state, const std::string& reason = "",
                        const std::optional<std::vector<std::string>>& features = std::nullopt);
    // Like allocate, except that a reservation may cover a drained/down node (maintenance).
    void add_reservation(const Reservation& reservation);
    void remove_reservation(const std::string& name);
    // Refuses clusters without a direct link in the topology and non-finite/negative figures.
    void measure_link(const LinkMeasurement& measurement);
    // Drops the measurements taken before t: the declared figures apply again (a site's
    // measured_link_max_age; a link measured long ago may have changed since). Returns how many.
    int forget_measurements_before(SiteTime t);
    void apply(const SiteDelta& delta);

    // Queries.
    NodeRef find(const NodeName& node) const;       // throws InputError on an unknown node
    NodeName name_of(NodeRef ref) const;
    const NodeUse& use(NodeRef ref) const {
        const auto& cluster = nodes_[static_cast<size_t>(ref.cluster)];
        return cluster.empty() ? kUntouched : cluster[static_cast<size_t>(ref.node)];
    }
    // GPUs held at time t by allocations and reservations whose [start, end) contains t.
    int used_gpus(NodeRef ref, SiteTime t) const;
    // GPUs a new job could get at time t: 0 on a node that is not up.
    int free_gpus(NodeRef ref, SiteTime t) const;
    int free_gpus(int cluster, SiteTime t) const;  // summed over the cluster's nodes
    // GPUs free during the whole of [start, end) (the most held at any moment subtracted).
    int free_gpus_between(NodeRef ref, SiteTime start, SiteTime end) const;
    // The direct link between two clusters: measured when measured, else nominal; nullopt when
    // the topology has no direct link (multi-hop routes come from free_view().path()).
    std::optional<LinkFigure> effective_link(int a, int b) const;

    const std::map<std::string, JobAllocation>& jobs() const { return jobs_; }
    const std::map<std::string, Reservation>& reservations() const { return reservations_; }
    // Measurements by index into topology().links.
    const std::map<int, LinkMeasurement>& measured_links() const { return measured_; }

    // A finalized Topology to plan on: each node's GPU count is what is free at t (0 on nodes
    // that are not up), links carry their effective figures. Clusters, nodes and links keep
    // their indices, so a plan made on the view addresses the real topology.
    Topology free_view(SiteTime t) const;
    // free_view with the clusters of `none_on` (indices) holding no free GPU: what a job may
    // start on beside a reservation of those clusters.
    Topology free_view(SiteTime t, const std::map<int, int>& none_on) const;
    // The same, but each node that is up keeps all its GPUs and a drained or down node has
    // none: what a job queued on this cluster can be placed on once it starts (Slurm queues it
    // behind the running jobs; it never starts it on a drained node).
    Topology usable_view() const;

    // For the snapshot reader: the epoch recorded in a snapshot.
    void restore_epoch(uint64_t epoch) { epoch_ = epoch; }

private:
    std::optional<NodeRef> lookup(const NodeName& name) const;
    std::string unknown_node_text(const NodeName& name) const;
    int capacity(NodeRef ref) const;
    Topology view_with(const std::function<int(NodeRef)>& gpus_of, const char* what) const;
    int peak_used(NodeRef ref, SiteTime start, SiteTime end) const;
    void check_shares(const std::string& what, const std::vector<NodeShare>& nodes, SiteTime start, SiteTime end,
                      bool require_up, std::vector<NodeRef>& refs) const;
    void add_spans(const std::vector<NodeShare>& nodes, const std::vector<NodeRef>& refs, SiteTime start,
                   SiteTime end, bool reservation, const std::string& owner);
    void remove_spans(const std::vector<NodeShare>& nodes, bool reservation, const std::string& owner);

    std::shared_ptr<const Topology> topology_;
    // Shared by clones: computed once per topology.
    std::shared_ptr<const std::string> hash_;
    std::shared_ptr<const std::vector<std::unordered_map<std::string, int>>> node_index_;  // [cluster] name -> node
    uint64_t epoch_ = 0;
    // The use of a node nothing was said of: up, no reason, no features, no spans.
    static const NodeUse kUntouched;
    NodeUse& mutable_use(NodeRef ref);
    // [cluster][node], parallel to the topology once something is said of one of the cluster's
    // nodes; empty until then. A broker holds one part per cluster, each over the whole
    // federation but saying things of its own cluster only: a part costs its own nodes.
    std::vector<std::vector<NodeUse>> nodes_;
    std::map<std::string, JobAllocation> jobs_;
    std::map<std::string, Reservation> reservations_;
    std::map<int, LinkMeasurement> measured_;
};

}  // namespace spiderflow
