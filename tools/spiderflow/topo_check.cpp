// `spiderflow topo check FILE [--reader NAME] [--format text|json]`: validates a topology file or
// a site's Slurm config and prints findings. Exit 0 clean, 1 findings, 2 unreadable input.
#include "tools/spiderflow/topo_check.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "common/topology/checks.h"
#include "common/topology/reader.h"
#include "common/topology/slurm_conf.h"
#include "common/topology/slurm_reader.h"
#include "common/util/errors.h"
#include "tools/spiderflow/command.h"

namespace spiderflow::cli {
namespace {

const char* const kUsage =
    "usage: spiderflow topo check FILE [--reader NAME] [--format text|json]\n\n"
    "Checks a topology the way sites get burned: nodes in slurm.conf missing from topology.conf\n"
    "(or the reverse), switches reaching no node, a switch tier that disconnects the tree,\n"
    "switches joined through undefined names, GPU counts that disagree with gres.conf,\n"
    "cluster pairs with no path or links with missing figures.\n\n"
    "  FILE            our topology JSON, hwloc XML, or a slurm.conf (gres.conf and\n"
    "                  topology.conf are read from the same directory)\n"
    "  --reader NAME   spiderflow, slurm or hwloc (default: from the file name)\n"
    "  --format FMT    text (default) or json\n\n"
    "Exit status: 0 no findings, 1 findings (errors or warnings), 2 unreadable input.\n";

bool is_slurm(const std::string& file, const std::string& reader) {
    if (!reader.empty()) return reader == "slurm";
    return std::filesystem::path(file).filename() == "slurm.conf";
}

std::vector<Finding> check_file(const std::string& file, const std::string& reader) {
    if (!is_slurm(file, reader)) return check_topology(read_topology(file, reader));
    const slurm::SiteConfig site = slurm::load_site_config(file);
    std::vector<Finding> findings = check_site_config(site);
    // The Topology can only be built from a config without errors; its own checks then add
    // what the raw files cannot show (GPU types, for one).
    if (count_errors(findings) == 0) {
        for (auto& f : check_topology(topology_from_site(site))) {
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

void print_json(const std::string& file, const std::vector<Finding>& findings, std::ostream& out) {
    nlohmann::ordered_json j;
    j["file"] = file;
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

}  // namespace

int run_topo_check(const std::vector<std::string>& args) {
    std::string file, reader, format = "text";
    for (size_t i = 1; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--help" || a == "-h") {
            std::cout << kUsage;
            return kExitOk;
        }
        if ((a == "--reader" || a == "--format") && i + 1 < args.size()) {
            (a == "--reader" ? reader : format) = args[++i];
        } else if (a.rfind("--reader=", 0) == 0) {
            reader = a.substr(9);
        } else if (a.rfind("--format=", 0) == 0) {
            format = a.substr(9);
        } else if (!a.empty() && a[0] == '-') {
            std::cerr << "spiderflow: topo check: unknown or incomplete option '" << a << "'\n" << kUsage;
            return kExitBadInput;
        } else if (file.empty()) {
            file = a;
        } else {
            std::cerr << "spiderflow: topo check: one FILE only ('" << a << "')\n" << kUsage;
            return kExitBadInput;
        }
    }
    if (file.empty()) {
        std::cerr << kUsage;
        return kExitBadInput;
    }
    if (format != "text" && format != "json") {
        std::cerr << "spiderflow: topo check: --format must be text or json, not '" << format << "'\n";
        return kExitBadInput;
    }
    if (!reader.empty()) make_topology_reader(reader);  // throws InputError listing the names

    std::vector<Finding> findings;
    try {
        findings = check_file(file, reader);
    } catch (const InputError& e) {
        std::cerr << "spiderflow: error: " << e.what() << "\n";
        return kExitBadInput;
    }
    if (format == "json") print_json(file, findings, std::cout);
    else print_text(file, findings, std::cout);
    return findings.empty() ? kExitOk : kExitFindings;
}

}  // namespace spiderflow::cli
