// `spiderflow topo check FILE [--reader NAME] [--format text|json]`: validates a topology file or
// a site's Slurm config and prints findings.
// `spiderflow topo check --topology T.json --slurm-conf slurm.conf [--cluster NAME]`: prints where
// our topology and the site's Slurm files disagree (nodes, GPU counts and types, switches).
// Exit 0 clean, 1 findings, 2 unreadable input.
#include "tools/spiderflow/topo_check.h"

#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "common/topology/checks.h"
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
    return check_slurm_site(slurm::load_slurm_files(file));
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
    for (const auto& f : findings) j["findings"].push_back(finding_to_json(f));
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
    const SlurmComparison c = compare_topology_with_slurm(o.topology, "spiderflow", o.slurm_conf, o.cluster);
    if (!c.error.empty()) {
        std::cerr << "spiderflow: error: " << c.error << "\n";
        return kExitBadInput;
    }
    if (o.format == "json") {
        nlohmann::ordered_json head;
        head["topology"] = o.topology;
        head["cluster"] = c.cluster;
        head["slurm_conf"] = o.slurm_conf;
        print_json(std::move(head), c.findings, std::cout);
    } else {
        print_text(o.topology + " (cluster " + c.cluster + ") vs " + o.slurm_conf, c.findings, std::cout);
    }
    return c.findings.empty() ? kExitOk : kExitFindings;
}

}  // namespace

nlohmann::ordered_json finding_to_json(const Finding& f) {
    nlohmann::ordered_json e;
    e["severity"] = severity_name(f.severity);
    e["what"] = f.what;
    e["message"] = f.message;
    e["fix"] = f.fix;
    if (!f.where.empty()) e["where"] = f.where;
    return e;
}

SlurmComparison compare_topology_with_slurm(const std::string& topology, const std::string& reader,
                                            const std::string& slurm_conf, const std::string& cluster) {
    SlurmComparison out;
    const Topology ours = read_topology(topology, reader);
    const slurm::SlurmFiles site = slurm::load_slurm_files(slurm_conf);
    Topology theirs;
    try {
        theirs = topology_from_slurm_files(site);
    } catch (const InputError& e) {
        out.error = std::string(e.what()) + "\n(run 'spiderflow topo check " + slurm_conf + "' for every finding in the Slurm files)";
        return out;
    }
    out.cluster = cluster.empty() ? site.slurm.cluster_name : cluster;
    const int c = ours.cluster_index(out.cluster);
    if (c < 0) {
        std::string names;
        for (const Cluster& k : ours.clusters) names += (names.empty() ? "" : ", ") + k.name;
        out.error = topology + " has no cluster '" + out.cluster + "' (" +
                    (cluster.empty() ? "ClusterName in " + slurm_conf : std::string("--cluster")) + "); its clusters: " + names +
                    (cluster.empty() ? "; name one with --cluster" : "");
        return out;
    }
    out.findings = compare_with_slurm(ours.clusters[static_cast<size_t>(c)], topology, theirs.clusters.front(), site);
    return out;
}

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
