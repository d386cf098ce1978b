#include "common/site/site_json.h"

#include <limits>
#include <set>
#include <utility>

#include "common/site/site_json_fields.h"
#include "common/util/errors.h"
#include "common/util/json_read.h"
#include "common/util/text_file.h"

namespace spiderflow {

using sitejson::json;
using sitejson::ordered_json;

std::string site_state_to_json(const SiteState& state, int indent) {
    const Topology& topo = state.topology();
    ordered_json root;
    root["spiderflow_site_state_version"] = kSiteStateFormatVersion;
    root["topology"] = {{"name", topo.name}, {"hash", state.topology_hash()}};
    root["epoch"] = state.epoch();
    ordered_json nodes = ordered_json::array();
    for (size_t c = 0; c < topo.clusters.size(); ++c) {
        for (size_t n = 0; n < topo.clusters[c].nodes.size(); ++n) {
            const NodeRef ref{static_cast<int>(c), static_cast<int>(n)};
            const NodeUse& u = state.use(ref);
            if (u.state == NodeState::up && u.reason.empty() && u.features.empty()) continue;
            ordered_json o;
            sitejson::put_node_state(o, NodeStateChanged{state.name_of(ref), u.state, u.reason, u.features});
            nodes.push_back(std::move(o));
        }
    }
    root["nodes"] = std::move(nodes);
    ordered_json jobs = ordered_json::array();
    for (const auto& [id, a] : state.jobs()) {
        ordered_json o;
        sitejson::put_allocation(o, a);
        jobs.push_back(std::move(o));
    }
    root["jobs"] = std::move(jobs);
    ordered_json res = ordered_json::array();
    for (const auto& [name, r] : state.reservations()) {
        ordered_json o;
        sitejson::put_reservation(o, r);
        res.push_back(std::move(o));
    }
    root["reservations"] = std::move(res);
    ordered_json links = ordered_json::array();
    for (const auto& [li, m] : state.measured_links()) {
        ordered_json o;
        sitejson::put_measurement(o, m);
        links.push_back(std::move(o));
    }
    root["links"] = std::move(links);
    return root.dump(indent) + "\n";
}

namespace {

using jsonread::Object;

// SiteState's own refusals name the job or node; here they also get the snapshot entry.
template <typename Fn>
void replay(const Object& entry, Fn&& fn) {
    try {
        fn();
    } catch (const InputError& e) {
        entry.fail((e.field().empty() ? "" : e.field() + ": ") + e.problem());
    }
}

// Before any other check, so a newer snapshot says "version", not "unknown key".
void check_version(const Object& root) {
    const int version = root.integer("spiderflow_site_state_version", 0, std::numeric_limits<int>::max());
    if (version != kSiteStateFormatVersion) {
        root.fail_at("spiderflow_site_state_version", "unsupported version " + std::to_string(version) +
                                                          " (this reader knows " +
                                                          std::to_string(kSiteStateFormatVersion) + ")");
    }
}

void check_topology(const Object& root, const SiteState& state) {
    const Object t = root.object("topology", {"name", "hash"});
    const std::string name = t.string("name");
    const std::string hash = t.string("hash");
    if (hash != state.topology_hash()) {
        t.fail_at("hash", "snapshot is of topology '" + name + "' (" + hash + "), not of the loaded topology '" +
                              state.topology().name + "' (" + state.topology_hash() + ")");
    }
}

}  // namespace

SiteState site_state_from_json(const std::string& text, std::shared_ptr<const Topology> topology,
                               const std::string& source) {
    const json doc = jsonread::parse(text, source);
    const Object root(doc, source, "");
    check_version(root);
    root.only({"spiderflow_site_state_version", "topology", "epoch", "nodes", "jobs", "reservations", "links"});
    SiteState state(std::move(topology));
    check_topology(root, state);
    const uint64_t epoch = static_cast<uint64_t>(root.i64("epoch", 0, std::numeric_limits<int64_t>::max()));

    // Jobs and reservations before node states: a snapshot may hold a job on a node drained
    // since it started, which allocate() would refuse on a drained node.
    for (const Object& o : root.objects("jobs", {"job", "start", "end", "nodes"})) {
        const JobAllocation a = sitejson::get_allocation(o);
        replay(o, [&] { state.allocate(a); });
    }
    for (const Object& o : root.objects("reservations", {"name", "start", "end", "nodes"})) {
        const Reservation r = sitejson::get_reservation(o);
        replay(o, [&] { state.add_reservation(r); });
    }
    std::set<std::pair<std::string, std::string>> seen;
    for (const Object& o : root.objects("nodes", {"cluster", "node", "state", "reason", "features"})) {
        const NodeStateChanged s = sitejson::get_node_state(o);
        if (!seen.emplace(s.node.cluster, s.node.node).second) o.fail("node " + s.node.text() + " listed twice");
        replay(o, [&] { state.set_node_state(s.node, s.state, s.reason, s.features); });
    }
    for (const Object& o : root.objects("links", {"a", "b", "gbps", "latency_ms", "timestamp", "source"})) {
        const LinkMeasurement m = sitejson::get_measurement(o);
        replay(o, [&] { state.measure_link(m); });
    }
    state.restore_epoch(epoch);
    return state;
}

SiteState read_site_state(const std::string& path, std::shared_ptr<const Topology> topology) {
    return site_state_from_json(read_text_file(path, "site state snapshot"), std::move(topology), path);
}

}  // namespace spiderflow
