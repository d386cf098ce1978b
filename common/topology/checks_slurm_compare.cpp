// compare_with_slurm(): one cluster of our topology file against the site's Slurm files (see
// checks.h). Errors are what makes a job pend forever or land on the wrong GPUs; warnings what
// only makes plans worse than they could be.
#include <algorithm>
#include <cctype>
#include <map>

#include "common/topology/checks.h"
#include "common/topology/checks_tree.h"
#include "common/topology/gpu_alias.h"

namespace spiderflow {
namespace {

using checks::where;

struct Sides {
    std::string json;             // our topology file, as given
    const Cluster* ours = nullptr;
    const slurm::SlurmFiles* site = nullptr;
    const Cluster* theirs = nullptr;  // built from `site`
};

std::string node_where(const slurm::SlurmFiles& site, const std::string& node) {
    for (const auto& l : site.slurm.nodes)
        if (std::find(l.names.begin(), l.names.end(), node) != l.names.end()) return where(site.slurm.path, l.line);
    return "";
}

std::string switch_where(const slurm::SlurmFiles& site, const std::string& name) {
    for (const auto& s : site.topology.switches)
        if (s.name == name) return where(site.topology.path, s.line);
    return "";
}

std::string gpus_text(const Node& n) { return n.gpus == 0 ? "no GPUs" : std::to_string(n.gpus) + "x " + n.gpu_type; }
std::string or_none(const std::string& s) { return s.empty() ? "none" : "'" + s + "'"; }

bool same_gpu_type(const std::string& a, const std::string& b) {
    std::string x = canonical_gpu_type(a), y = canonical_gpu_type(b);
    for (auto* s : {&x, &y})
        for (char& c : *s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return x == y;
}

void compare_node(const Sides& s, const Node& a, const Node& b, bool trees, std::vector<Finding>& out) {
    const std::string& conf = s.site->slurm.path;
    const std::string what = "node " + a.name;
    const std::string where = node_where(*s.site, a.name);
    if (a.gpus != b.gpus)
        out.push_back({Severity::error, what,
                       std::to_string(a.gpus) + " GPUs in " + s.json + ", " + std::to_string(b.gpus) + " in " + conf,
                       "make the counts agree: the planner places ranks by " + s.json + ", Slurm allocates by Gres= in " + conf,
                       where});
    else if (a.gpus > 0 && !a.gpu_type.empty() && !b.gpu_type.empty() && !same_gpu_type(a.gpu_type, b.gpu_type))
        out.push_back({Severity::error, what,
                       "GPU type '" + a.gpu_type + "' in " + s.json + ", '" + b.gpu_type + "' in " + conf + " (or gres.conf)",
                       "name one type in both, spelled so it maps to a catalog name (spiderflow catalog gpus)", where});
    if (trees && a.leaf_switch != b.leaf_switch)
        out.push_back({Severity::warning, what,
                       "on leaf switch " + or_none(a.leaf_switch) + " in " + s.json + ", " + or_none(b.leaf_switch) + " in " +
                           s.site->topology.path,
                       "list the node under the same leaf switch in both (topology.conf SwitchName=... Nodes=)",
                       b.leaf_switch.empty() ? where : switch_where(*s.site, b.leaf_switch)});
}

std::vector<std::string> sorted(std::vector<std::string> v) {
    std::sort(v.begin(), v.end());
    return v;
}

std::string joined(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& x : v) out += (out.empty() ? "" : ",") + x;
    return out.empty() ? "none" : "[" + out + "]";
}

void compare_switches(const Sides& s, std::vector<Finding>& out) {
    const std::string& tconf = s.site->topology.path;
    std::map<std::string, const Switch*> theirs;
    for (const Switch& w : s.theirs->switches) theirs[w.name] = &w;
    for (const Switch& w : s.ours->switches) {
        auto it = theirs.find(w.name);
        if (it == theirs.end()) {
            out.push_back({Severity::warning, "switch " + w.name, "in " + s.json + " but not in " + tconf,
                           "add SwitchName=" + w.name + " to " + tconf + " or remove it from " + s.json, ""});
            continue;
        }
        const auto mine = sorted(w.switches), other = sorted(it->second->switches);
        if (mine != other)
            out.push_back({Severity::warning, "switch " + w.name,
                           "child switches " + joined(mine) + " in " + s.json + ", " + joined(other) + " in " + tconf,
                           "make the switch tree the same in both", switch_where(*s.site, w.name)});
        theirs.erase(it);
    }
    for (const Switch& w : s.theirs->switches) {
        if (!theirs.count(w.name)) continue;
        out.push_back({Severity::warning, "switch " + w.name, "in " + tconf + " but not in " + s.json,
                       "add switch '" + w.name + "' to cluster '" + s.ours->name + "' in " + s.json + " or remove it from " + tconf,
                       switch_where(*s.site, w.name)});
    }
}

}  // namespace

std::vector<Finding> compare_with_slurm(const Cluster& ours, const std::string& ours_file, const Cluster& theirs,
                                        const slurm::SlurmFiles& site) {
    const Sides s{ours_file, &ours, &site, &theirs};
    std::vector<Finding> out;
    const std::string& conf = s.site->slurm.path;
    const bool ours_tree = !s.ours->switches.empty(), their_tree = !s.theirs->switches.empty();
    if (ours_tree != their_tree)
        out.push_back({Severity::warning, "cluster " + s.ours->name,
                       "switch tree in " + (ours_tree ? s.json : s.site->topology.path) + " (" +
                           std::to_string((ours_tree ? s.ours : s.theirs)->switches.size()) + " switches), none in " +
                           (ours_tree ? s.site->topology.path : s.json),
                       "describe the same switches in both, or in neither", ""});
    for (const Node& a : s.ours->nodes) {
        const int j = s.theirs->node_index(a.name);
        if (j >= 0) compare_node(s, a, s.theirs->nodes[static_cast<size_t>(j)], ours_tree && their_tree, out);
        else if (a.gpus > 0)
            out.push_back({Severity::error, "node " + a.name,
                           "in " + s.json + " (cluster " + s.ours->name + ", " + gpus_text(a) + ") but not in " + conf +
                               ": the planner may place ranks there and the job then pends forever",
                           "add NodeName=" + a.name + " to " + conf + " or remove the node from " + s.json, ""});
    }
    for (const Node& b : s.theirs->nodes) {
        if (b.gpus == 0 || s.ours->node_index(b.name) >= 0) continue;
        out.push_back({Severity::warning, "node " + b.name,
                       "in " + conf + " (" + gpus_text(b) + ") but not in " + s.json + " (cluster " + s.ours->name +
                           "): it is never planned onto",
                       "add the node to cluster '" + s.ours->name + "' in " + s.json + " if jobs should use it",
                       node_where(*s.site, b.name)});
    }
    if (ours_tree && their_tree) compare_switches(s, out);
    return out;
}

}  // namespace spiderflow
