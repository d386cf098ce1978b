// `spiderflow topo check FILE [--reader NAME] [--format text|json]`: validates a topology file or
// a site's Slurm config and prints findings.
// `spiderflow topo check --topology T.json --slurm-conf slurm.conf [--cluster NAME]`: prints where
// our topology and the site's Slurm files disagree (nodes, GPU counts and types, switches).
// Exit 0 clean, 1 findings, 2 unreadable input.
#include "tools/spiderflow/topo_check.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "common/topology/checks.h"
#include "common/topology/gpu_alias.h"
#include "common/topology/reader.h"
#include "common/topology/slurm_conf.h"
#include "common/topology/slurm_reader.h"
#include "common/util/errors.h"
#include "common/util/cli_options.h"
#include "tools/spiderflow/command.h"

namespace spiderflow::cli {
namespace {

const char* const kUsage =
    "usage: spiderflow topo check FILE [--reader NAME] [--format text|json]\n"
    "       spiderflow topo check --topology T.json --slurm-conf slurm.conf [--cluster NAME]\n"
    "                             [--format text|json]\n\n"
    "Checks a topology the way sites get burned: nodes in slurm.conf missing from topology.conf\n"
    "(or the reverse), switches reaching no node, a switch tier that disconnects the tree,\n"
    "switches joined through undefined names, GPU counts that disagree with gres.conf,\n"
    "cluster pairs with no path or links with missing figures.\n\n";

const char* const kCompareHelp =
    "\nWith --topology and --slurm-conf, compares one cluster of our topology JSON with the site's\n"
    "Slurm files (gres.conf and topology.conf read from beside slurm.conf) and reports each\n"
    "disagreement: a GPU node only in the JSON (the planner may place ranks there and the job\n"
    "then pends forever), a GPU node only in slurm.conf (never planned onto), GPU counts or\n"
    "types that differ, a node on another leaf switch, a switch in one only or with other child\n"
    "switches. Run 'spiderflow topo check slurm.conf' for mistakes inside the Slurm files.\n\n";

const char* const kFooter = "\nExit status: 0 no findings, 1 findings (errors or warnings), 2 unreadable input.\n";

bool is_slurm(const std::string& file, const std::string& reader) {
    if (!reader.empty()) return reader == "slurm";
    return std::filesystem::path(file).filename() == "slurm.conf";
}

std::vector<Finding> check_file(const std::string& file, const std::string& reader) {
    if (!is_slurm(file, reader)) return check_topology(read_topology(file, reader));
    const slurm::SlurmFiles site = slurm::load_slurm_files(file);
    std::vector<Finding> findings = check_slurm_files(site);
    // The Topology can only be built from a config without errors; its own checks then add
    // what the raw files cannot show (GPU types, for one).
    if (count_errors(findings) == 0) {
        for (auto& f : check_topology(topology_from_slurm_files(site))) {
            // The switch tree was checked on the raw files already, with line numbers.
            bool seen = std::any_of(findings.begin(), findings.end(), [&](const Finding& g) {
                return g.message == f.message && f.what.size() >= g.what.size() &&
                       f.what.compare(f.what.size() - g.what.size(), g.what.size(), g.what) == 0;
            });
            if (!seen) findings.push_back(std::move(f));
        }
    }
    return findings;
}

// --- our topology JSON against the site's Slurm files ---------------------------------------

struct Sides {
    std::string json;             // our topology file, as given
    const Cluster* ours = nullptr;
    const slurm::SlurmFiles* site = nullptr;
    const Cluster* theirs = nullptr;  // built from `site`
};

std::string at_line(const std::string& file, int line) { return file + ":" + std::to_string(line); }

std::string node_where(const slurm::SlurmFiles& site, const std::string& node) {
    for (const auto& l : site.slurm.nodes)
        if (std::find(l.names.begin(), l.names.end(), node) != l.names.end()) return at_line(site.slurm.path, l.line);
    return "";
}

std::string switch_where(const slurm::SlurmFiles& site, const std::string& name) {
    for (const auto& s : site.topology.switches)
        if (s.name == name) return at_line(site.topology.path, s.line);
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

std::vector<Finding> compare_with_slurm(const Sides& s) {
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

void print_text(const std::string& file, const std::vector<Finding>& findings, std::ostream& out) {
    for (const auto& f : findings) {
        out << severity_name(f.severity) << ": " << f.what << ": " << f.message << "\n";
        if (!f.where.empty()) out << "  at:  " << f.where << "\n";
        out << "  fix: " << f.fix << "\n";
    }
    const size_t errors = count_errors(findings);
    if (findings.empty()) out << file << ": no findings\n";
    else out << file << ": " << errors << " error(s), " << findings.size() - errors << " warning(s)\n";
}

// `head` names what was checked ({"file": ...} or the two sides of a comparison).
void print_json(nlohmann::ordered_json j, const std::vector<Finding>& findings, std::ostream& out) {
    j["errors"] = count_errors(findings);
    j["warnings"] = findings.size() - count_errors(findings);
    j["findings"] = nlohmann::ordered_json::array();
    for (const auto& f : findings) {
        nlohmann::ordered_json e;
        e["severity"] = severity_name(f.severity);
        e["what"] = f.what;
        e["message"] = f.message;
        e["fix"] = f.fix;
        if (!f.where.empty()) e["where"] = f.where;
        j["findings"].push_back(std::move(e));
    }
    out << j.dump(2) << "\n";
}

struct Options {
    std::string file, reader, format = "text";
    std::string topology, slurm_conf, cluster;  // the comparison
};

OptionTable check_table(Options& o) {
    OptionTable t("spiderflow topo check", kUsage, kFooter, 18);
    t.line("FILE", "our topology JSON, hwloc XML, or a slurm.conf (gres.conf and\n"
                   "topology.conf are read from the same directory)");
    t.value("--reader", "NAME", "spiderflow, slurm or hwloc (default: from the file name)", store(&o.reader));
    t.value("--format", "FMT", "text (default) or json", one_of(&o.format, {"text", "json"}));
    t.section(kCompareHelp, 21);
    t.value("--topology", "FILE", "our topology JSON", store(&o.topology));
    t.value("--slurm-conf", "FILE", "the site's slurm.conf", store(&o.slurm_conf));
    t.value("--cluster", "NAME", "the JSON cluster to compare (default: slurm.conf's ClusterName)", store(&o.cluster));
    t.words(1);
    return t;
}

// Fills `o`; returns an exit status when the command is done (help, usage error), else -1.
int parse_options(const std::vector<std::string>& args, Options& o) {
    const OptionTable t = check_table(o);
    const auto p = t.parse_or_help(args, 1, std::cout);
    if (!p) return kExitOk;
    if (!p->words.empty()) o.file = p->words[0];
    const bool compare = !o.topology.empty() || !o.slurm_conf.empty() || !o.cluster.empty();
    std::string bad;
    if (compare && (o.topology.empty() || o.slurm_conf.empty()))
        bad = "--topology and --slurm-conf go together (and --cluster only with them)";
    else if (compare && (!o.file.empty() || !o.reader.empty())) bad = "give FILE or --topology/--slurm-conf, not both";
    else if (!compare && o.file.empty()) bad = "nothing to check: give FILE, or --topology and --slurm-conf";
    if (bad.empty()) return -1;
    std::cerr << "spiderflow: topo check: " << bad << "\n" << t.help();
    return kExitBadInput;
}

int run_compare(const Options& o) {
    const Topology ours = read_topology(o.topology, "spiderflow");
    const slurm::SlurmFiles site = slurm::load_slurm_files(o.slurm_conf);
    Topology theirs;
    try {
        theirs = topology_from_slurm_files(site);
    } catch (const InputError& e) {
        std::cerr << "spiderflow: error: " << e.what() << "\n(run 'spiderflow topo check " << o.slurm_conf
                  << "' for every finding in the Slurm files)\n";
        return kExitBadInput;
    }
    const std::string name = o.cluster.empty() ? site.slurm.cluster_name : o.cluster;
    const int c = ours.cluster_index(name);
    if (c < 0) {
        std::string names;
        for (const Cluster& k : ours.clusters) names += (names.empty() ? "" : ", ") + k.name;
        std::cerr << "spiderflow: error: " << o.topology << " has no cluster '" << name << "' ("
                  << (o.cluster.empty() ? "ClusterName in " + o.slurm_conf : std::string("--cluster")) << "); its clusters: "
                  << names << (o.cluster.empty() ? "; name one with --cluster" : "") << "\n";
        return kExitBadInput;
    }
    const Sides sides{o.topology, &ours.clusters[static_cast<size_t>(c)], &site, &theirs.clusters.front()};
    const std::vector<Finding> findings = compare_with_slurm(sides);
    if (o.format == "json") {
        nlohmann::ordered_json head;
        head["topology"] = o.topology;
        head["cluster"] = name;
        head["slurm_conf"] = o.slurm_conf;
        print_json(std::move(head), findings, std::cout);
    } else {
        print_text(o.topology + " (cluster " + name + ") vs " + o.slurm_conf, findings, std::cout);
    }
    return findings.empty() ? kExitOk : kExitFindings;
}

}  // namespace

int run_topo_check(const std::vector<std::string>& args) {
    Options o;
    if (const int rc = parse_options(args, o); rc >= 0) return rc;
    try {
        if (!o.topology.empty()) return run_compare(o);
        if (!o.reader.empty()) make_topology_reader(o.reader);  // throws InputError listing the names
        const std::vector<Finding> findings = check_file(o.file, o.reader);
        if (o.format == "json") print_json(nlohmann::ordered_json::object({{"file", o.file}}), findings, std::cout);
        else print_text(o.file, findings, std::cout);
        return findings.empty() ? kExitOk : kExitFindings;
    } catch (const InputError& e) {
        std::cerr << "spiderflow: error: " << e.what() << "\n";
        return kExitBadInput;
    }
}

}  // namespace spiderflow::cli
