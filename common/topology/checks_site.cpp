// check_slurm_files(): the raw Slurm files against each other; check_slurm_site(): those and the
// topology they build (see checks.h).
#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <unordered_map>

#include "common/topology/checks.h"
#include "common/topology/checks_tree.h"
#include "common/topology/slurm_reader.h"

namespace spiderflow {
namespace {

using checks::did_you_mean;
using checks::name_list;
using checks::where;

std::string lower(std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// Findings that differ only in the node they name are merged into one listing the nodes.
class Grouped {
public:
    void add(const std::string& key, const std::string& node, Finding proto) {
        auto [it, fresh] = index_.emplace(key, protos_.size());
        if (fresh) {
            protos_.push_back(std::move(proto));
            nodes_.emplace_back();
        }
        nodes_[it->second].push_back(node);
    }
    void flush(std::vector<Finding>& out) {
        for (size_t i = 0; i < protos_.size(); ++i) {
            Finding f = protos_[i];
            f.what = name_list(nodes_[i], "node", "nodes");
            out.push_back(std::move(f));
        }
    }

private:
    std::unordered_map<std::string, size_t> index_;
    std::vector<Finding> protos_;
    std::vector<std::vector<std::string>> nodes_;
};

std::string lines_of(const std::vector<const slurm::GresLine*>& lines) {
    std::string out;
    for (auto* l : lines) out += (out.empty() ? "" : ", ") + std::to_string(l->line);
    return (lines.size() == 1 ? "line " : "lines ") + out;
}

void check_gpus(const slurm::SlurmFiles& site, std::vector<Finding>& out) {
    const auto& conf = site.slurm;
    const auto& gres = site.gres;
    const std::string gres_file = gres.path.empty() ? "gres.conf" : gres.path;
    std::set<std::string> all_nodes;
    for (const auto& nl : conf.nodes) all_nodes.insert(nl.names.begin(), nl.names.end());

    // GresTypes must name gpu before any node may declare it.
    bool types_gpu = std::find(conf.gres_types.begin(), conf.gres_types.end(), "gpu") != conf.gres_types.end();
    for (const auto& nl : conf.nodes) {
        if (nl.gpu_count() > 0 && !types_gpu) {
            out.push_back({Severity::error, "GresTypes", "nodes declare Gres=gpu but GresTypes does not list gpu: slurmctld refuses the config",
                           "add GresTypes=gpu to slurm.conf", where(conf.path, conf.gres_types_line ? conf.gres_types_line : nl.line)});
            break;
        }
    }

    // gres.conf lines on their own.
    for (const auto& g : gres.lines) {
        if (g.name == "gpu" && !g.files.empty() && g.count >= 0 && g.count != static_cast<long>(g.files.size()))
            out.push_back({Severity::error, "gres.conf Name=gpu", "Count=" + std::to_string(g.count) + " but File= lists " +
                               std::to_string(g.files.size()) + " devices",
                           "make Count= equal the number of File= devices, or drop Count=", where(gres_file, g.line)});
        std::vector<std::string> unknown;
        for (const auto& n : g.node_names)
            if (!all_nodes.count(n)) unknown.push_back(n);
        if (!unknown.empty()) {
            std::string guess = unknown.size() == 1 ? did_you_mean(unknown[0], std::vector<std::string>(all_nodes.begin(), all_nodes.end())) : "";
            out.push_back({Severity::warning, name_list(unknown, "node", "nodes"), "named in gres.conf but not defined in slurm.conf",
                           guess.empty() ? "remove it from the gres.conf NodeName= list or define it in slurm.conf"
                                         : "did you mean '" + guess + "'? correct gres.conf NodeName=",
                           where(gres_file, g.line)});
        }
    }

    Grouped grouped;
    for (const auto& nl : conf.nodes) {
        const long want = nl.gpu_count();
        std::map<std::string, long> want_typed;
        bool all_typed = true;
        for (const auto& s : nl.gres) {
            if (s.name != "gpu") continue;
            if (s.type.empty()) all_typed = false;
            else want_typed[lower(s.type)] += s.count;
        }
        for (const auto& node : nl.names) {
            std::vector<const slurm::GresLine*> lines;
            long have = 0;
            std::map<std::string, long> have_typed;
            std::string autodetect = gres.autodetect;
            for (const auto& g : gres.lines) {
                if (!g.applies_to(node)) continue;
                if (g.name.empty()) {
                    autodetect = g.autodetect;
                    continue;
                }
                if (g.name != "gpu") continue;
                lines.push_back(&g);
                have += g.devices();
                if (!g.type.empty()) have_typed[lower(g.type)] += g.devices();
            }
            const bool detects = !autodetect.empty() && autodetect != "off";
            const std::string gres_where = lines.empty() ? where(gres_file, 0) : where(gres_file, lines.front()->line);
            if (want > 0 && have == 0 && !detects) {
                std::string msg = "Gres=gpu:" + std::to_string(want) + " in slurm.conf but " +
                                  (gres.present ? "gres.conf lists no GPU device for it" : "there is no gres.conf beside slurm.conf") +
                                  ": slurmd drops file-less GPUs and the node goes INVAL";
                grouped.add("nofile:" + std::to_string(nl.line), node,
                            {Severity::error, "", msg,
                             "add a gres.conf line such as NodeName=" + node + " Name=gpu File=/dev/nvidia[0-" +
                                 std::to_string(std::max<long>(want - 1, 0)) + "], or AutoDetect=nvml",
                             where(conf.path, nl.line)});
            } else if (want > 0 && have > 0 && have != want) {
                grouped.add("count:" + std::to_string(nl.line) + ":" + lines_of(lines), node,
                            {Severity::error, "",
                             "slurm.conf declares Gres=gpu:" + std::to_string(want) + " but gres.conf (" + lines_of(lines) + ") gives " +
                                 std::to_string(have) + " GPU devices: Slurm marks the node INVAL and our planner would count the wrong GPUs",
                             "make the Gres= count on slurm.conf line " + std::to_string(nl.line) + " and the File=/Count= entries in gres.conf agree",
                             where(conf.path, nl.line)});
            } else if (want > 0 && have == want && all_typed && !have_typed.empty() && have_typed != want_typed) {
                std::string w, h;
                for (const auto& [t, c] : want_typed) w += (w.empty() ? "" : ",") + t + ":" + std::to_string(c);
                for (const auto& [t, c] : have_typed) h += (h.empty() ? "" : ",") + t + ":" + std::to_string(c);
                grouped.add("type:" + std::to_string(nl.line) + ":" + w + "/" + h, node,
                            {Severity::error, "", "GPU types disagree: slurm.conf Gres= has " + w + ", gres.conf Type= has " + h,
                             "use the same Type= names in gres.conf as in slurm.conf's Gres=gpu:TYPE:N", where(conf.path, nl.line)});
            } else if (want == 0 && have > 0) {
                grouped.add("undeclared:" + std::to_string(nl.line), node,
                            {Severity::warning, "", "gres.conf gives it " + std::to_string(have) +
                                                        " GPU devices but its slurm.conf line declares no Gres=gpu: Slurm will not schedule them",
                             "add Gres=gpu:" + std::to_string(have) + " to its NodeName line", gres_where});
            }
        }
    }
    grouped.flush(out);
}

}  // namespace

std::vector<Finding> check_slurm_files(const slurm::SlurmFiles& site) {
    std::vector<Finding> out;
    const auto& conf = site.slurm;
    if (conf.cluster_name.empty())
        out.push_back({Severity::error, "ClusterName", "slurm.conf has no ClusterName=: Slurm requires one and it names the cluster in a federation",
                       "add ClusterName=<name> to slurm.conf", where(conf.path, 0)});
    for (int line : conf.includes)
        out.push_back({Severity::warning, "Include", "Include directives are not followed: nodes defined in the included file are not seen",
                       "point spiderflow at a slurm.conf with the included lines copied in", where(conf.path, line)});

    // Node definitions.
    std::unordered_map<std::string, int> first_line;
    std::vector<std::string> node_names;
    for (const auto& nl : conf.nodes) {
        for (const auto& n : nl.names) {
            auto [it, fresh] = first_line.emplace(n, nl.line);
            if (fresh) node_names.push_back(n);
            else
                out.push_back({Severity::error, "node " + n, "defined twice in slurm.conf (first on line " + std::to_string(it->second) + ")",
                               "keep a single NodeName= definition of it", where(conf.path, nl.line)});
        }
    }

    // Partitions naming undefined nodes.
    std::set<std::string> nodesets(conf.nodesets.begin(), conf.nodesets.end());
    for (const auto& p : conf.partitions) {
        std::vector<std::string> unknown;
        for (const auto& n : p.nodes)
            if (!first_line.count(n) && !nodesets.count(n)) unknown.push_back(n);
        if (unknown.empty()) continue;
        std::string guess = unknown.size() == 1 ? did_you_mean(unknown[0], node_names) : "";
        out.push_back({Severity::error, name_list(unknown, "node", "nodes"), "in PartitionName=" + p.name + " but not defined by any NodeName= line",
                       guess.empty() ? "define it in slurm.conf or remove it from the partition's Nodes="
                                     : "did you mean '" + guess + "'? correct the partition's Nodes=",
                       where(conf.path, p.line)});
    }

    // The switch tree.
    const auto& tconf = site.topology;
    const std::string tfile = tconf.path.empty() ? "topology.conf" : tconf.path;
    if (!tconf.present) {
        if (conf.topology_plugin.find("tree") != std::string::npos)
            out.push_back({Severity::error, "topology.conf", "TopologyPlugin=" + conf.topology_plugin + " but there is no topology.conf beside slurm.conf",
                           "write topology.conf with SwitchName= lines for the cluster's switches", tfile});
        else if (node_names.size() > 1)
            out.push_back({Severity::warning, "topology.conf", "no topology.conf beside slurm.conf: placement inside the cluster sees a flat network",
                           "describe the leaf and spine switches in topology.conf (SwitchName=... Nodes=... / Switches=...)", tfile});
    } else if (tconf.switches.empty()) {
        out.push_back({Severity::warning, "topology.conf", "defines no switch", "add SwitchName= lines, or remove the file", tfile});
    } else {
        checks::TreeInput tree;
        tree.nodes = node_names;
        tree.slurm_syntax = true;
        for (const auto& s : tconf.switches)
            tree.switches.push_back({s.name, s.switches, s.nodes, where(tfile, s.line)});
        checks::check_switch_tree(tree, out);
    }

    check_gpus(site, out);
    return out;
}

std::vector<Finding> check_slurm_site(const slurm::SlurmFiles& site) {
    std::vector<Finding> findings = check_slurm_files(site);
    if (count_errors(findings) > 0) return findings;
    for (auto& f : check_topology(topology_from_slurm_files(site))) {
        // The same message about the same element, worded by check_topology as "cluster 'c':
        // switch s" where the raw files said "switch s".
        const bool seen = std::any_of(findings.begin(), findings.end(), [&](const Finding& g) {
            return g.message == f.message && f.what.size() >= g.what.size() &&
                   f.what.compare(f.what.size() - g.what.size(), g.what.size(), g.what) == 0;
        });
        if (!seen) findings.push_back(std::move(f));
    }
    return findings;
}

}  // namespace spiderflow
