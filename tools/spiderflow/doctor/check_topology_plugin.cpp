// Slurm numbers its nodes by leaf switch, as a plan numbers its ranks, so that a plain srun gives
// SLURM_PROCID == RANK (doc/slurm.md, "Slurm places tasks in that order"). How differs by version:
// 22.05 through our topology/spiderflow_tree, 23.02 to 25.11 with topology/tree and
// TopologyParam=SwitchAsNodeRank, 26.05 with topology/tree alone (slurm.conf's TopologyPlugin, or
// a tree in topology.yaml from 25.05 on). Elsewhere RANK still follows the plan, so this is a
// warning: tools that read Slurm's own variables see another order.
#include <filesystem>
#include <sstream>

#include "common/util/text_file.h"
#include "tools/spiderflow/doctor/checks.h"

namespace spiderflow::doctor {
namespace {

constexpr uint32_t kV23_02 = (23u << 16) | (2u << 8);
constexpr uint32_t kV26_05 = (26u << 16) | (5u << 8);

bool has_word(const std::string& list, const std::string& word) {
    std::stringstream in(list);
    for (std::string w; std::getline(in, w, ',');)
        if (w == word) return true;
    return false;
}

// topology.yaml beside slurm.conf with a tree in it (Slurm 25.05's way of naming the plugin).
bool yaml_tree(const std::string& slurm_conf) {
    std::string text;
    const auto yaml = std::filesystem::path(slurm_conf).parent_path() / "topology.yaml";
    if (!read_whole_file(yaml.string(), text)) return false;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        const auto b = line.find_first_not_of(" \t-");
        if (b != std::string::npos && line.compare(b, 5, "tree:") == 0) return true;
    }
    return false;
}

}  // namespace

void check_topology_plugin(const SiteFacts& site, CheckResult& r) {
    const SlurmSettings* s = site.slurm.settings();
    if (s == nullptr) return r.skip("slurm.conf could not be read");
    const uint32_t v = s->version.empty() ? site.slurm.built_against : version_number(s->version);
    const std::string where = site.slurm.where("topologyplugin");
    const std::string plugin = s->topology_plugin.empty() ? "(none)" : s->topology_plugin;
    const std::string consequence = ": Slurm numbers nodes by name, so a plain srun's SLURM_PROCID differs from RANK "
                                    "(RANK still follows the plan; `spiderflow launch` orders tasks itself)";
    if (v < kV23_02) {
        if (s->topology_plugin == "topology/spiderflow_tree") return r.pass("TopologyPlugin=topology/spiderflow_tree");
        r.warning("TopologyPlugin", "is " + plugin + " on Slurm " + version_text(v) + consequence,
                  "TopologyPlugin=topology/spiderflow_tree (built with ./configure --with-slurm-source), then restart slurmctld",
                  where);
        return;
    }
    const bool tree = s->topology_plugin == "topology/tree" || (s->topology_plugin.empty() && yaml_tree(site.slurm.conf_path));
    if (v < kV26_05) {
        if (tree && has_word(s->topology_param, "SwitchAsNodeRank"))
            return r.pass("TopologyPlugin=topology/tree, TopologyParam=" + s->topology_param);
        r.warning(tree ? "TopologyParam" : "TopologyPlugin",
                  (tree ? "lacks SwitchAsNodeRank" : "is " + plugin) + " on Slurm " + version_text(v) + consequence,
                  "TopologyPlugin=topology/tree and TopologyParam=SwitchAsNodeRank in slurm.conf, then restart slurmctld",
                  tree ? site.slurm.where("topologyparam") : where);
        return;
    }
    if (tree) return r.pass("a tree topology (Slurm " + version_text(v) + " numbers nodes by switch itself)");
    r.warning("TopologyPlugin", "is " + plugin + " on Slurm " + version_text(v) + consequence,
              "TopologyPlugin=topology/tree (or a tree in topology.yaml), then restart slurmctld", where);
}

}  // namespace spiderflow::doctor
