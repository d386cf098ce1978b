// Our plugins: where Slurm will look for each one the site uses, and whether Slurm's loader will
// take it (plugin_type and plugin_version, as src/common/plugin.c checks them). A plugin built
// for another Slurm is refused at load ("Incompatible Slurm plugin version"): slurmctld does not
// start (job_submit, sched, topology) or every sbatch/srun fails (a `required` SPANK plugin, a
// select plugin, which every command loads from PluginDir whether configured or not).
#include <filesystem>
#include <string>
#include <vector>

#include "tools/spiderflow/doctor/checks.h"
#include "tools/spiderflow/doctor/plugin_file.h"
#include "tools/spiderflow/doctor/plugstack.h"

namespace spiderflow::doctor {
namespace {

struct Wanted {
    std::string file;        // job_submit_spiderflow.so
    std::string type;        // plugin_type it must have; "" for the SPANK step side (no Slurm symbols)
    std::string path;        // where Slurm finds it; "" when it does not
    std::string looked_in;   // for the message
    std::string where;       // the config line that names it
};

constexpr const char* kInstallFix =
    "install it where Slurm looks: `make install` (or the spiderflow-slurm-plugins package) puts our plugins in "
    "Slurm's PluginDir; or add the directory holding it to PluginDir in slurm.conf";
constexpr const char* kRebuildFix =
    "rebuild SpiderFlow against the installed Slurm (./configure reads its slurm.h) and install the plugins again: "
    "every Slurm upgrade needs this, as for any plugin";

Wanted in_plugindir(const std::string& file, const std::string& type, const std::string& plugindir, const std::string& where) {
    return {file, type, resolve_in_plugindir(file, plugindir), "PluginDir " + plugindir, where};
}

std::string basename_of(const std::string& p) { return std::filesystem::path(p).filename().string(); }

// The SPANK plugin as plugstack.conf loads it, and its step side beside it (or at stepd=).
void spank_plugins(const SlurmSettings& s, std::vector<Wanted>& out) {
    const Plugstack stack = read_plugstack(s.plugstack);
    for (const SpankLine& l : stack.plugins) {
        if (basename_of(l.path) != "spiderflow.so") continue;
        Wanted spank{"spiderflow.so", "spank", resolve_in_plugindir(l.path, s.plugindir),
                     l.path[0] == '/' ? l.path : "PluginDir " + s.plugindir, l.where()};
        std::string stepd;
        for (const std::string& a : l.args)
            if (a.rfind("stepd=", 0) == 0) stepd = a.substr(6);
        const std::string dir = spank.path.empty() ? std::string() : std::filesystem::path(spank.path).parent_path().string();
        if (stepd.empty() && !dir.empty()) stepd = dir + "/spiderflow_stepd.so";
        out.push_back(spank);
        if (!stepd.empty()) {
            std::error_code ec;
            out.push_back({"spiderflow_stepd.so", "", std::filesystem::is_regular_file(stepd, ec) ? stepd : "", stepd, l.where()});
        }
        return;
    }
    // No line loads it (check_plugstack says so): it should still be installed.
    out.push_back(in_plugindir("spiderflow.so", "spank", s.plugindir, ""));
}

}  // namespace

void check_plugins(const SiteFacts& site, CheckResult& r) {
    const SlurmSettings* s = site.slurm.settings();
    if (s == nullptr) return r.skip("slurm.conf could not be read");
    if (s->plugindir.empty()) return r.skip("PluginDir is Slurm's built-in one, which only libslurm can name, and it cannot read slurm.conf");
    const SlurmFacts& f = site.slurm;
    std::vector<Wanted> wanted;
    wanted.push_back(in_plugindir("job_submit_spiderflow.so", "job_submit/spiderflow", s->plugindir, f.where("jobsubmitplugins")));
    spank_plugins(*s, wanted);
    // The plugins inside slurmctld's scheduling, where slurm.conf names them. The select plugin
    // also whenever it is in PluginDir: every Slurm command loads every select_*.so there.
    Wanted select = in_plugindir("select_spiderflow_cons_tres.so", "select/spiderflow_cons_tres", s->plugindir, f.where("selecttype"));
    if (s->select_type == "select/spiderflow_cons_tres" || !select.path.empty()) wanted.push_back(select);
    if (s->sched_type == "sched/spiderflow")
        wanted.push_back(in_plugindir("sched_spiderflow.so", "sched/spiderflow", s->plugindir, f.where("schedulertype")));
    if (s->topology_plugin == "topology/spiderflow_tree")
        wanted.push_back(in_plugindir("topology_spiderflow_tree.so", "topology/spiderflow_tree", s->plugindir, f.where("topologyplugin")));

    const uint32_t slurm = site.slurm.controller ? version_number(site.slurm.controller->version) : 0;
    const uint32_t against = slurm != 0 ? slurm : site.slurm.built_against;
    const std::string against_text =
        slurm != 0 ? "slurmctld " + version_text(slurm) : "Slurm " + version_text(against) + " (the one this spiderflow was built against; slurmctld not asked)";
    std::string seen;
    for (const Wanted& w : wanted) {
        if (w.path.empty()) {
            r.error(w.file, "not found (looked in " + w.looked_in + ")", kInstallFix, w.where);
            continue;
        }
        const PluginFile p = read_plugin_file(w.path);
        if (!p.error.empty()) {
            r.error(w.path, "Slurm cannot load it: " + p.error, "replace it with the file make built, or reinstall the plugins", w.where);
            continue;
        }
        if (w.type.empty()) {  // the step side: the SPANK plugin dlopen()s it and asks for its ABI
            if (p.exports.count("spiderflow_stepd_abi") == 0)
                r.error(w.path, "is not SpiderFlow's step side (no spiderflow_stepd_abi)", kInstallFix, w.where);
            seen += (seen.empty() ? "" : ", ") + w.path;
            continue;
        }
        if (p.type != w.type) {
            r.error(w.path, "its plugin_type is '" + p.type + "', not '" + w.type + "'", kInstallFix, w.where);
            continue;
        }
        if (!p.version) {
            r.error(w.path, "exports no plugin_version: Slurm's loader refuses it", kRebuildFix, w.where);
            continue;
        }
        if (against != 0 && !version_accepted(w.type, *p.version, against)) {
            r.error(w.path, "built for Slurm " + version_text(*p.version) + ", not for " + against_text + ": Slurm refuses to load it",
                    kRebuildFix, w.where);
            continue;
        }
        seen += (seen.empty() ? "" : ", ") + w.path;
    }
    r.pass(seen + " (built for " + against_text + ")");
}

}  // namespace spiderflow::doctor
