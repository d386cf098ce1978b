#include "libspiderflow/site/site_json.h"

#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <utility>

#include "libspiderflow/site/site_json_fields.h"
#include "libspiderflow/util/errors.h"
#include "libspiderflow/util/json_read.h"

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

const json& array_member(const json& root, const char* key, const std::string& source) {
    const json& v = sitejson::member(root, key, source, "");
    if (!v.is_array()) throw InputError(source, 0, key, "expected an array");
    return v;
}

std::string at(const char* key, size_t i) { return std::string(key) + "[" + std::to_string(i) + "]"; }

// SiteState's own refusals name the job or node; here they also get the snapshot entry.
template <typename Fn>
void replay(const std::string& source, const std::string& path, Fn&& fn) {
    try {
        fn();
    } catch (const InputError& e) {
        throw InputError(source, 0, path, (e.field().empty() ? "" : e.field() + ": ") + e.problem());
    }
}

// Before any other check, so a newer snapshot says "version", not "unknown key".
void check_version(const json& root, const std::string& source) {
    jsonread::require_object(root, source, "");
    const json& v = sitejson::member(root, "spiderflow_site_state_version", source, "");
    const int version = jsonread::get_int(v, source, "spiderflow_site_state_version", 0,
                                          std::numeric_limits<int>::max());
    if (version != kSiteStateFormatVersion) {
        throw InputError(source, 0, "spiderflow_site_state_version",
                         "unsupported version " + std::to_string(version) + " (this reader knows " +
                             std::to_string(kSiteStateFormatVersion) + ")");
    }
}

void check_topology(const json& root, const SiteState& state, const std::string& source) {
    const json& t = sitejson::member(root, "topology", source, "");
    jsonread::only_keys(t, {"name", "hash"}, source, "topology");
    const std::string name = jsonread::get_string(sitejson::member(t, "name", source, "topology"), source, "topology.name");
    const std::string hash = jsonread::get_string(sitejson::member(t, "hash", source, "topology"), source, "topology.hash");
    if (hash != state.topology_hash()) {
        throw InputError(source, 0, "topology.hash",
                         "snapshot is of topology '" + name + "' (" + hash + "), not of the loaded topology '" +
                             state.topology().name + "' (" + state.topology_hash() + ")");
    }
}

}  // namespace

SiteState site_state_from_json(const std::string& text, std::shared_ptr<const Topology> topology,
                               const std::string& source) {
    const json root = jsonread::parse(text, source);
    check_version(root, source);
    jsonread::only_keys(root,
                        {"spiderflow_site_state_version", "topology", "epoch", "nodes", "jobs", "reservations", "links"},
                        source, "");
    SiteState state(std::move(topology));
    check_topology(root, state, source);
    const json& epoch = sitejson::member(root, "epoch", source, "");
    if (!epoch.is_number_unsigned()) throw InputError(source, 0, "epoch", "expected a non-negative integer");

    // Jobs and reservations before node states: a snapshot may hold a job on a node drained
    // since it started, which allocate() would refuse on a drained node.
    const json& jobs = array_member(root, "jobs", source);
    for (size_t i = 0; i < jobs.size(); ++i) {
        const std::string path = at("jobs", i);
        jsonread::only_keys(jobs[i], {"job", "start", "end", "nodes"}, source, path);
        const JobAllocation a = sitejson::get_allocation(jobs[i], source, path);
        replay(source, path, [&] { state.allocate(a); });
    }
    const json& res = array_member(root, "reservations", source);
    for (size_t i = 0; i < res.size(); ++i) {
        const std::string path = at("reservations", i);
        jsonread::only_keys(res[i], {"name", "start", "end", "nodes"}, source, path);
        const Reservation r = sitejson::get_reservation(res[i], source, path);
        replay(source, path, [&] { state.add_reservation(r); });
    }
    const json& nodes = array_member(root, "nodes", source);
    std::set<std::pair<std::string, std::string>> seen;
    for (size_t i = 0; i < nodes.size(); ++i) {
        const std::string path = at("nodes", i);
        jsonread::only_keys(nodes[i], {"cluster", "node", "state", "reason", "features"}, source, path);
        const NodeStateChanged s = sitejson::get_node_state(nodes[i], source, path);
        if (!seen.emplace(s.node.cluster, s.node.node).second) {
            throw InputError(source, 0, path, "node " + s.node.text() + " listed twice");
        }
        replay(source, path, [&] { state.set_node_state(s.node, s.state, s.reason, s.features); });
    }
    const json& links = array_member(root, "links", source);
    for (size_t i = 0; i < links.size(); ++i) {
        const std::string path = at("links", i);
        jsonread::only_keys(links[i], {"a", "b", "gbps", "latency_ms", "timestamp", "source"}, source, path);
        const LinkMeasurement m = sitejson::get_measurement(links[i], source, path);
        replay(source, path, [&] { state.measure_link(m); });
    }
    state.restore_epoch(epoch.get<uint64_t>());
    return state;
}

SiteState read_site_state(const std::string& path, std::shared_ptr<const Topology> topology) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path, 0, "", "cannot open site state snapshot");
    std::ostringstream ss;
    ss << in.rdbuf();
    return site_state_from_json(ss.str(), std::move(topology), path);
}

}  // namespace spiderflow
