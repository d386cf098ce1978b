// plugstack.conf: one line loads our SPANK plugin (the --llm-* options of sbatch, salloc and
// srun, and the step side), and it reads the spiderflow.conf job_submit reads.
#include <filesystem>

#include "tools/spiderflow/doctor/checks.h"
#include "tools/spiderflow/doctor/plugstack.h"

namespace spiderflow::doctor {
namespace {

bool same_file(const std::string& a, const std::string& b) {
    std::error_code ec;
    if (std::filesystem::equivalent(a, b, ec)) return true;
    return std::filesystem::weakly_canonical(a, ec) == std::filesystem::weakly_canonical(b, ec);
}

}  // namespace

void check_plugstack(const SiteFacts& site, CheckResult& r) {
    const SlurmSettings* s = site.slurm.settings();
    if (s == nullptr) return r.skip("slurm.conf could not be read");
    const std::string where = site.slurm.where("plugstackconfig");
    std::error_code ec;
    if (s->plugstack.empty() || !std::filesystem::is_regular_file(s->plugstack, ec)) {
        r.error("PlugStackConfig", "there is no " + (s->plugstack.empty() ? std::string("plugstack.conf") : s->plugstack) +
                                       ": no SPANK plugin is loaded, so sbatch knows no --llm-* option",
                "create it with the line `optional spiderflow.so` (contrib/slurm/plugstack.conf.example)", where);
        return;
    }
    const Plugstack stack = read_plugstack(s->plugstack);
    for (const std::string& p : stack.problems)
        r.error("plugstack.conf", p + " (Slurm refuses the whole stack: every sbatch, salloc and srun fails)",
                "fix or remove that line", "");
    std::vector<const SpankLine*> ours;
    for (const SpankLine& l : stack.plugins)
        if (std::filesystem::path(l.path).filename() == "spiderflow.so") ours.push_back(&l);
    std::string files;
    for (const std::string& f : stack.read) files += (files.empty() ? "" : ", ") + f;
    if (ours.empty()) {
        r.error(s->plugstack, "no line loads spiderflow.so (read: " + files + "): sbatch knows no --llm-* option and steps get no ranks",
                "add `optional spiderflow.so` to " + s->plugstack +
                    " (or a file with that line in plugstack.conf.d/, which it includes with `include plugstack.conf.d/*.conf`)",
                where);
        return;
    }
    if (ours.size() > 1) {
        r.error(ours[1]->where(), "spiderflow.so is loaded a second time (first at " + ours[0]->where() +
                                      "): Slurm refuses the second copy's options and fails every sbatch",
                "keep one of the two lines");
    }
    const SpankLine& line = *ours.front();
    for (const std::string& a : line.args) {
        if (a.rfind("conf=", 0) != 0 || site.spiderflow.path.empty()) continue;
        const std::string conf = a.substr(5);
        if (!same_file(conf, site.spiderflow.path))
            r.warning(line.where(),
                      "the SPANK plugin reads " + conf + " but job_submit reads " + site.spiderflow.path +
                          ": the two sides of a job may plan with different settings",
                      "point conf= at " + site.spiderflow.path + ", or drop conf= (then both read spiderflow.conf beside slurm.conf)");
    }
    r.pass(line.where() + ": " + (line.required ? "required " : "optional ") + line.path);
}

}  // namespace spiderflow::doctor
