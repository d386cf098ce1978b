#include "common/site/site_diff.h"

#include <set>

#include "common/site/site_json.h"
#include "common/util/errors.h"

namespace spiderflow {
namespace {

// Names in `from` whose entry is gone from or different in `to`, and names in `to` that are new
// or different: the second list is re-added after the first is removed.
template <typename Map, typename Remove, typename Add>
void diff_named(const Map& from, const Map& to, Remove remove, Add add) {
    for (const auto& [name, entry] : from) {
        auto it = to.find(name);
        if (it == to.end() || !(it->second == entry)) remove(name);
    }
    for (const auto& [name, entry] : to) {
        auto it = from.find(name);
        if (it == from.end() || !(it->second == entry)) add(entry);
    }
}

}  // namespace

std::vector<SiteDelta> diff_parts(const SiteState& from, const SiteState& to) {
    std::vector<SiteDelta> releases, ups, adds, downs, links;
    diff_named(from.jobs(), to.jobs(), [&](const std::string& n) { releases.push_back(JobReleased{n}); },
               [&](const JobAllocation& a) { adds.push_back(JobAllocated{a}); });
    diff_named(from.reservations(), to.reservations(),
               [&](const std::string& n) { releases.push_back(ReservationRemoved{n}); },
               [&](const Reservation& r) { adds.push_back(ReservationAdded{r}); });
    const Topology& t = to.topology();
    for (size_t c = 0; c < t.clusters.size(); ++c) {
        for (size_t n = 0; n < t.clusters[c].nodes.size(); ++n) {
            const NodeRef ref{static_cast<int>(c), static_cast<int>(n)};
            const NodeUse& a = from.use(ref);
            const NodeUse& b = to.use(ref);
            if (a.state == b.state && a.reason == b.reason && a.features == b.features) continue;
            NodeStateChanged change{to.name_of(ref), b.state, b.reason, b.features};
            (b.state == NodeState::up ? ups : downs).push_back(std::move(change));
        }
    }
    // A job added (or re-added with a new end) on a node that stays drained or down: the node
    // is brought up just for the allocation and put back after it, inside the same batch.
    std::set<std::string> coming_up, going_down, lifted;
    for (const SiteDelta& d : ups) coming_up.insert(std::get<NodeStateChanged>(d).node.text());
    for (const SiteDelta& d : downs) going_down.insert(std::get<NodeStateChanged>(d).node.text());
    for (const SiteDelta& d : adds) {
        const auto* a = std::get_if<JobAllocated>(&d);
        if (a == nullptr) continue;
        for (const NodeShare& share : a->allocation.nodes) {
            const std::string name = share.node.text();
            const NodeRef ref = from.find(share.node);
            const NodeUse& was = from.use(ref);
            if (was.state == NodeState::up || coming_up.count(name) || !lifted.insert(name).second) continue;
            ups.push_back(NodeStateChanged{share.node, NodeState::up, "", was.features});
            if (!going_down.count(name)) {
                const NodeUse& now = to.use(ref);
                downs.push_back(NodeStateChanged{share.node, now.state, now.reason, now.features});
            }
        }
    }
    for (const auto& [li, m] : to.measured_links()) {
        auto it = from.measured_links().find(li);
        if (it == from.measured_links().end() || !(it->second == m)) links.push_back(LinkMeasured{m});
    }
    std::vector<SiteDelta> out;
    for (auto* list : {&releases, &ups, &adds, &downs, &links}) out.insert(out.end(), list->begin(), list->end());
    return out;
}

bool deltas_reach(const SiteState& from, const std::vector<SiteDelta>& deltas, const SiteState& to) {
    SiteState applied = from.clone();
    try {
        for (const SiteDelta& d : deltas) applied.apply(d);
    } catch (const InputError&) {
        return false;
    }
    SiteState target = to.clone();
    applied.restore_epoch(0);
    target.restore_epoch(0);
    return site_state_to_json(applied, -1) == site_state_to_json(target, -1);
}

}  // namespace spiderflow
