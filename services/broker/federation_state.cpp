#include "services/broker/federation_state.h"

#include <algorithm>
#include <iterator>
#include <type_traits>

#include "common/site/site_diff.h"
#include "common/site/site_json.h"
#include "common/util/errors.h"

namespace spiderflow::broker {

std::string federation_name(const std::string& cluster, const std::string& local) { return cluster + ":" + local; }

FederationState::FederationState(std::shared_ptr<const Topology> topology)
    : topology_(std::move(topology)), blank_(topology_) {}

bool FederationState::has_cluster(const std::string& name) const { return topology_->cluster_index(name) >= 0; }

namespace {

void refuse(const std::string& source, const std::string& field, const std::string& what) {
    throw InputError(source, 0, field, what);
}

bool on_cluster(const std::vector<NodeShare>& nodes, const std::string& cluster) {
    for (const auto& n : nodes)
        if (n.node.cluster != cluster) return false;
    return true;
}

}  // namespace

// Everything in `part` must be the cluster's own: its nodes' states, jobs and reservations on
// its nodes only, and link figures for links that touch it.
void FederationState::check_owned(const std::string& cluster, const SiteState& part, const std::string& source) const {
    const Topology& t = *topology_;
    for (size_t c = 0; c < t.clusters.size(); ++c) {
        if (t.clusters[c].name == cluster) continue;
        for (size_t n = 0; n < t.clusters[c].nodes.size(); ++n) {
            const NodeUse& u = part.use(NodeRef{static_cast<int>(c), static_cast<int>(n)});
            if (u.state != NodeState::up || !u.features.empty()) {
                refuse(source, "nodes", "node " + t.clusters[c].name + ":" + t.clusters[c].nodes[n].name +
                                            " belongs to cluster '" + t.clusters[c].name + "', not '" + cluster + "'");
            }
        }
    }
    for (const auto& [name, a] : part.jobs()) {
        if (!on_cluster(a.nodes, cluster)) refuse(source, "jobs", "job '" + name + "' uses nodes outside cluster '" + cluster + "'");
    }
    for (const auto& [name, r] : part.reservations()) {
        if (!on_cluster(r.nodes, cluster)) {
            refuse(source, "reservations", "reservation '" + name + "' uses nodes outside cluster '" + cluster + "'");
        }
    }
    for (const auto& [li, m] : part.measured_links()) {
        if (m.a != cluster && m.b != cluster) {
            refuse(source, "links", "link " + m.a + "-" + m.b + " does not touch cluster '" + cluster + "'");
        }
    }
}

void FederationState::replace_part(const std::string& cluster, const std::string& snapshot_json, int64_t now) {
    const std::string source = "inventory of " + cluster;
    if (!has_cluster(cluster)) refuse(source, "", "cluster '" + cluster + "' is not in the federation topology");
    SiteState part = site_state_from_json(snapshot_json, topology_, source);
    check_owned(cluster, part, source);
    auto it = parts_.find(cluster);
    const SiteState* before = it != parts_.end() ? &it->second : nullptr;
    const auto links_before = newest_of_links(before, &part);
    const std::vector<SiteDelta> change = diff_parts(before ? *before : blank_, part);
    const bool sayable = deltas_reach(before ? *before : blank_, change, part);
    parts_.insert_or_assign(cluster, std::move(part));
    updated_[cluster] = now;
    ++epoch_;
    merged_.reset();
    log_change(cluster, change, links_before);
    if (!sayable) changes_.back().sayable = false;
}

void FederationState::apply_deltas(const std::string& cluster, const std::vector<SiteDelta>& deltas, int64_t now) {
    const std::string source = "deltas of " + cluster;
    if (!has_cluster(cluster)) refuse(source, "", "cluster '" + cluster + "' is not in the federation topology");
    auto it = parts_.find(cluster);
    // An empty batch is the agent's heartbeat: the part is current, nothing changed, and the
    // epoch stays, so readers that cache by epoch keep their copy.
    if (deltas.empty() && it != parts_.end()) {
        updated_[cluster] = now;
        return;
    }
    SiteState part = it != parts_.end() ? it->second.clone() : blank_.clone();
    for (size_t i = 0; i < deltas.size(); ++i) {
        const std::string field = "deltas[" + std::to_string(i) + "]";
        std::visit(
            [&](const auto& d) {
                using D = std::decay_t<decltype(d)>;
                if constexpr (std::is_same_v<D, NodeStateChanged>) {
                    if (d.node.cluster != cluster) refuse(source, field, "node " + d.node.text() + " is not in cluster '" + cluster + "'");
                } else if constexpr (std::is_same_v<D, JobAllocated>) {
                    if (!on_cluster(d.allocation.nodes, cluster)) refuse(source, field, "job '" + d.allocation.job + "' uses nodes outside cluster '" + cluster + "'");
                } else if constexpr (std::is_same_v<D, ReservationAdded>) {
                    if (!on_cluster(d.reservation.nodes, cluster)) refuse(source, field, "reservation '" + d.reservation.name + "' uses nodes outside cluster '" + cluster + "'");
                } else if constexpr (std::is_same_v<D, LinkMeasured>) {
                    if (d.measurement.a != cluster && d.measurement.b != cluster) {
                        refuse(source, field, "link " + d.measurement.a + "-" + d.measurement.b + " does not touch cluster '" + cluster + "'");
                    }
                }
            },
            deltas[i]);
        try {
            part.apply(deltas[i]);
        } catch (const InputError& e) {
            refuse(source, field, e.problem());
        }
    }
    const auto links_before = newest_of_links(it != parts_.end() ? &it->second : nullptr, &part);
    parts_.insert_or_assign(cluster, std::move(part));
    updated_[cluster] = now;
    ++epoch_;
    merged_.reset();
    log_change(cluster, deltas, links_before);
}

void FederationState::restore(uint64_t epoch) {
    epoch_ = epoch;
    merged_.reset();
    changes_.clear();
    log_base_ = epoch;
}

std::string FederationState::part_json(const std::string& cluster) const {
    auto it = parts_.find(cluster);
    return site_state_to_json(it == parts_.end() ? blank_ : it->second, -1);
}

int64_t FederationState::updated_at(const std::string& cluster) const {
    auto it = updated_.find(cluster);
    return it == updated_.end() ? 0 : it->second;
}

const SiteState& FederationState::merged() const { return *merged_snapshot(); }

std::shared_ptr<const SiteState> FederationState::merged_snapshot() const {
    if (merged_) return merged_;
    auto all = std::make_shared<SiteState>(blank_.clone());
    // In the snapshot reader's order (jobs, reservations, node states, links): a drained node
    // keeps the jobs it had, which allocate() would refuse once it is drained. Each part was
    // accepted whole over the same topology and parts share no node, so the replay cannot fail.
    for (const auto& [cluster, part] : parts_) {
        for (const auto& [name, a] : part.jobs()) {
            JobAllocation copy = a;
            copy.job = federation_name(cluster, name);
            all->allocate(copy);
        }
    }
    for (const auto& [cluster, part] : parts_) {
        for (const auto& [name, r] : part.reservations()) {
            Reservation copy = r;
            copy.name = federation_name(cluster, name);
            all->add_reservation(copy);
        }
    }
    // Link figures: the newest measurement of each link, whichever end published it.
    std::map<int, LinkMeasurement> newest;
    for (const auto& [cluster, part] : parts_) {
        const int c = topology_->cluster_index(cluster);
        const auto& nodes = topology_->clusters[static_cast<size_t>(c)].nodes;
        for (size_t n = 0; n < nodes.size(); ++n) {
            const NodeUse& u = part.use(NodeRef{c, static_cast<int>(n)});
            // Every node the part says anything of, as a snapshot writes it (an up node's reason
            // too): a delta read replays the part's own node deltas onto a reader's copy.
            if (u.state != NodeState::up || !u.reason.empty() || !u.features.empty()) {
                all->set_node_state({cluster, nodes[n].name}, u.state, u.reason, u.features);
            }
        }
        for (const auto& [li, m] : part.measured_links()) {
            auto it = newest.find(li);
            if (it == newest.end() || it->second.timestamp < m.timestamp) newest[li] = m;
        }
    }
    for (const auto& [li, m] : newest) all->measure_link(m);
    all->restore_epoch(epoch_);
    merged_ = all;
    return merged_;
}

namespace {

bool newer(const LinkMeasurement& candidate, const std::optional<LinkMeasurement>& best) {
    return !best || best->timestamp < candidate.timestamp;
}

// A part's delta in the merged view's names.
SiteDelta in_federation_names(const std::string& cluster, SiteDelta delta) {
    std::visit(
        [&](auto& d) {
            using D = std::decay_t<decltype(d)>;
            if constexpr (std::is_same_v<D, JobAllocated>) d.allocation.job = federation_name(cluster, d.allocation.job);
            else if constexpr (std::is_same_v<D, JobReleased>) d.job = federation_name(cluster, d.job);
            else if constexpr (std::is_same_v<D, ReservationAdded>) d.reservation.name = federation_name(cluster, d.reservation.name);
            else if constexpr (std::is_same_v<D, ReservationRemoved>) d.name = federation_name(cluster, d.name);
        },
        delta);
    return delta;
}

}  // namespace

// As merged() picks it: the first newest in the parts' (cluster name) order.
std::optional<LinkMeasurement> FederationState::newest_measurement(int li) const {
    const Link& l = topology_->links[static_cast<size_t>(li)];
    std::optional<LinkMeasurement> best;
    std::vector<const SiteState*> ends;
    for (const std::string& name : {topology_->clusters[static_cast<size_t>(l.a)].name,
                                    topology_->clusters[static_cast<size_t>(l.b)].name}) {
        auto it = parts_.find(name);
        if (it != parts_.end()) ends.push_back(&it->second);
    }
    if (ends.size() == 2 && topology_->clusters[static_cast<size_t>(l.b)].name < topology_->clusters[static_cast<size_t>(l.a)].name) {
        std::swap(ends[0], ends[1]);
    }
    for (const SiteState* part : ends) {
        auto m = part->measured_links().find(li);
        if (m != part->measured_links().end() && newer(m->second, best)) best = m->second;
    }
    return best;
}

// The links either state measures, with their newest figure in the federation now.
std::map<int, std::optional<LinkMeasurement>> FederationState::newest_of_links(const SiteState* a,
                                                                               const SiteState* b) const {
    std::map<int, std::optional<LinkMeasurement>> out;
    for (const SiteState* s : {a, b}) {
        if (s == nullptr) continue;
        for (const auto& [li, m] : s->measured_links()) {
            if (!out.count(li)) out[li] = newest_measurement(li);
        }
    }
    return out;
}

void FederationState::log_change(const std::string& cluster, const std::vector<SiteDelta>& deltas,
                                 const std::map<int, std::optional<LinkMeasurement>>& links_before) {
    Change change;
    change.epoch = epoch_;
    for (const SiteDelta& d : deltas) {
        if (std::holds_alternative<LinkMeasured>(d)) continue;  // said below, as the merged view has them
        change.deltas.push_back(in_federation_names(cluster, d));
    }
    for (const auto& [li, before] : links_before) {
        const std::optional<LinkMeasurement> now = newest_measurement(li);
        if (now == before) continue;
        if (now) change.deltas.push_back(LinkMeasured{*now});
        else change.sayable = false;  // back to the declared figure: no delta says that
    }
    changes_.push_back(std::move(change));
    while (changes_.size() > kChangeLogEpochs) {
        log_base_ = changes_.front().epoch;
        changes_.pop_front();
    }
}

void FederationState::follow(const std::vector<StoredPart>& parts, uint64_t epoch, std::vector<std::string>* dropped) {
    Change folded;
    folded.epoch = epoch;
    size_t logged = 0;
    for (const StoredPart& p : parts) {
        try {
            replace_part(p.cluster, p.snapshot_json, p.updated_at);
            ++logged;
        } catch (const InputError&) {
            folded.sayable = false;
            if (dropped) dropped->push_back(p.cluster);
        }
    }
    // The replaces logged one change each, at epochs of their own: one change at the store's.
    const size_t from = changes_.size() - std::min(logged, changes_.size());
    for (size_t i = from; i < changes_.size(); ++i) {
        folded.deltas.insert(folded.deltas.end(), changes_[i].deltas.begin(), changes_[i].deltas.end());
        folded.sayable = folded.sayable && changes_[i].sayable;
    }
    changes_.resize(from);
    if (epoch > epoch_ || logged > 0) changes_.push_back(std::move(folded));
    epoch_ = std::max(epoch_, epoch);
    merged_.reset();
}

std::optional<std::vector<SiteDelta>> FederationState::changes_since(uint64_t since) const {
    if (since > epoch_ || since < log_base_) return std::nullopt;
    // The first change after `since`; `since` must be an epoch this state was at: the log's
    // base or the epoch of a change.
    const auto first = std::upper_bound(changes_.begin(), changes_.end(), since,
                                        [](uint64_t e, const Change& c) { return e < c.epoch; });
    if (since != log_base_ && (first == changes_.begin() || std::prev(first)->epoch != since)) return std::nullopt;
    std::vector<SiteDelta> out;
    for (size_t i = static_cast<size_t>(first - changes_.begin()); i < changes_.size(); ++i) {
        if (!changes_[i].sayable) return std::nullopt;
        out.insert(out.end(), changes_[i].deltas.begin(), changes_[i].deltas.end());
    }
    return out;
}

}  // namespace spiderflow::broker
