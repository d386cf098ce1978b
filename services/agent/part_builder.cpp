#include "services/agent/part_builder.h"

#include <algorithm>
#include <set>

#include "common/util/errors.h"

namespace spiderflow::agent {
namespace {

class Builder {
public:
    Builder(std::shared_ptr<const Topology> topology, const std::string& cluster, std::vector<std::string>* notes)
        : state_(topology), cluster_(cluster), notes_(notes) {
        index_ = topology->cluster_index(cluster);
        if (index_ < 0) throw InputError("agent", 0, "cluster", "cluster '" + cluster + "' is not in the topology");
        for (const Node& n : topology->clusters[static_cast<size_t>(index_)].nodes) known_.insert(n.name);
    }

    void nodes(const std::vector<ObservedNode>& observed) {
        std::set<std::string> seen;
        for (const ObservedNode& n : observed) {
            if (!known_.count(n.name)) {
                note("Slurm node " + n.name + " is not in the topology's cluster '" + cluster_ + "': not published");
                continue;
            }
            seen.insert(n.name);
            if (n.state != NodeState::up || !n.features.empty()) wanted_states_.push_back(n);
        }
        for (const std::string& name : known_) {
            if (!seen.count(name)) {
                note("topology node " + cluster_ + ":" + name + " is not in Slurm's node table: published as down");
                wanted_states_.push_back({name, NodeState::down, "not in Slurm's node table", {}});
            }
        }
    }

    // Jobs before node states: a drained node keeps the jobs it runs.
    void holds(const std::vector<ObservedHold>& holds, bool reservation) {
        for (const ObservedHold& h : holds) {
            std::vector<NodeShare> shares = shares_of(h);
            if (shares.empty()) continue;
            if (try_add(h, shares, reservation)) continue;
            // Slurm holds more than the topology leaves room for: record what fits.
            for (NodeShare& s : shares) {
                const int free = state_.free_gpus_between(state_.find(s.node), h.start, h.end);
                s.gpus = std::min(s.gpus, std::max(0, free));
                s.cores = std::max(s.cores, 1);
            }
            const std::string what = std::string(reservation ? "reservation " : "job ") + h.name;
            if (try_add(h, shares, reservation)) {
                note(what + " holds more GPUs than the topology leaves free on its nodes: published with what fits");
            } else {
                note(what + " not published: " + last_error_);
            }
        }
    }

    void apply_states() {
        for (const ObservedNode& n : wanted_states_) {
            std::optional<std::vector<std::string>> features;
            if (!n.features.empty()) features = n.features;
            state_.set_node_state({cluster_, n.name}, n.state, n.reason, features);
        }
    }

    void links(const std::vector<LinkMeasurement>& links) {
        for (const LinkMeasurement& m : links) {
            if (m.a != cluster_ && m.b != cluster_) {
                note("link " + m.a + "-" + m.b + " does not touch cluster '" + cluster_ + "': not published");
                continue;
            }
            try {
                state_.measure_link(m);
            } catch (const InputError& e) {
                note(std::string("link figure not published: ") + e.what());
            }
        }
    }

    SiteState take() { return std::move(state_); }

private:
    std::vector<NodeShare> shares_of(const ObservedHold& h) {
        std::vector<NodeShare> shares;
        int left = h.total_gpus;
        for (const ObservedHold::Share& s : h.nodes) {
            if (!known_.count(s.node)) continue;   // noted with the node table
            int gpus = s.gpus;
            if (gpus < 0) {
                const int cap = capacity(s.node);
                gpus = left < 0 ? cap : std::min(cap, left);
                if (left >= 0) left -= gpus;
            }
            shares.push_back({{cluster_, s.node}, gpus, gpus == 0 ? std::max(1, s.cores) : s.cores});
        }
        return shares;
    }

    bool try_add(const ObservedHold& h, const std::vector<NodeShare>& shares, bool reservation) {
        try {
            if (reservation) {
                state_.add_reservation(Reservation{h.name, h.start, h.end, shares});
            } else {
                // Allocation refuses nodes that are not up; states are applied after, so all are up here.
                state_.allocate(JobAllocation{h.name, h.start, h.end, shares});
            }
            return true;
        } catch (const InputError& e) {
            last_error_ = e.what();
            return false;
        }
    }

    int capacity(const std::string& node) const {
        const NodeRef ref = state_.find({cluster_, node});
        return state_.topology().clusters[static_cast<size_t>(ref.cluster)].nodes[static_cast<size_t>(ref.node)].gpus;
    }

    void note(const std::string& text) {
        if (notes_ != nullptr) notes_->push_back(text);
    }

    SiteState state_;
    std::string cluster_;
    std::vector<std::string>* notes_;
    int index_ = -1;
    std::set<std::string> known_;
    std::vector<ObservedNode> wanted_states_;
    std::string last_error_;
};

}  // namespace

SiteState build_part(std::shared_ptr<const Topology> topology, const std::string& cluster,
                     const ClusterObservation& observation, const std::vector<LinkMeasurement>& links,
                     std::vector<std::string>* notes) {
    Builder b(std::move(topology), cluster, notes);
    b.nodes(observation.nodes);
    b.holds(observation.jobs, false);
    b.holds(observation.reservations, true);
    b.apply_states();
    b.links(links);
    return b.take();
}

}  // namespace spiderflow::agent
