// `spiderflow topo show|generate|check`: look at a topology the way the planner sees it.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/topology/generator.h"
#include "common/topology/reader.h"
#include "common/topology/topology_json.h"
#include "common/util/errors.h"
#include "common/util/units.h"
#include "common/util/cli_options.h"
#include "tools/spiderflow/command.h"
#include "tools/spiderflow/topo_check.h"

namespace spiderflow::cli {
namespace {

constexpr const char* kUsage =
    "usage: spiderflow topo show FILE [--reader NAME] [--format text|json]\n"
    "       spiderflow topo generate --clusters N [--profile P] [--seed S] [--nearest K] [-o FILE]\n"
    "       spiderflow topo check ARGS...   (see 'spiderflow topo check --help')\n";

constexpr const char* kShowUsage =
    "usage: spiderflow topo show FILE [--reader NAME] [--format text|json]\n\n"
    "Reads a topology and prints its clusters (nodes, GPUs per type, intra-cluster figures)\n"
    "and the matrix of widest paths between clusters: bottleneck bandwidth in Gbps / summed\n"
    "latency in ms; '*' marks pairs routed over more than one link, listed below the matrix.\n\n";

constexpr const char* kGenerateUsage =
    "usage: spiderflow topo generate --clusters N [--profile P] [--seed S] [--nearest K] [-o FILE]\n\n"
    "Writes a synthetic federation in the spiderflow topology format. The same seed gives the\n"
    "same file.\n"
    "  metros (default): N clusters (1-1024) around real metro areas, heterogeneous GPUs, link\n"
    "    figures from distance. Up to 16 clusters are fully meshed; above that each cluster\n"
    "    links to its K nearest (default 4) and to its metro's hub.\n"
    "  decentralized: N sites (2-1024) of 16-256 GPUs (H100, A100, V100, L40S) in DTFM's ten\n"
    "    AWS regions, leaf-spine fabrics 1:1, 2:1 or 4:1 oversubscribed, every pair linked at\n"
    "    DTFM's measured inter-region figure (doc/evaluation says where each figure comes from).\n\n";

[[noreturn]] void usage_error(const std::string& what) { throw InputError("spiderflow topo", 0, "", what); }

std::string fmt(const char* f, double x) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, x);
    return buf;
}

std::string pad(const std::string& s, size_t w) { return s.size() >= w ? s + " " : s + std::string(w - s.size(), ' '); }
std::string rpad(const std::string& s, size_t w) { return s.size() >= w ? " " + s : std::string(w - s.size(), ' ') + s; }

std::map<std::string, int> gpus_by_type(const Cluster& c) {
    std::map<std::string, int> out;
    for (const Node& n : c.nodes) {
        if (n.gpus > 0) out[n.gpu_type] += n.gpus;
    }
    return out;
}

std::string gbps(double Bps) { return fmt("%.3g", units::Bps_to_gbps(Bps)); }
std::string ms(double s) { return fmt("%.3g", units::s_to_ms(s)); }

constexpr size_t kMaxMatrix = 32;

void show_text(const Topology& t, const std::string& file, std::ostream& out) {
    out << "topology " << (t.name.empty() ? file : t.name) << ": " << t.clusters.size() << " clusters, "
        << t.total_gpus() << " GPUs, " << t.links.size() << " links\n\n";
    size_t wname = 8;
    size_t wregion = 7;
    for (const Cluster& c : t.clusters) {
        wname = std::max(wname, c.name.size() + 1);
        wregion = std::max(wregion, c.region.size() + 1);
    }
    out << pad("cluster", wname) << pad("region", wregion) << rpad("nodes", 6) << rpad("GPUs", 6) << "  "
        << pad("GPU types", 28) << "intra-cluster\n";
    for (const Cluster& c : t.clusters) {
        std::string types;
        for (const auto& [type, count] : gpus_by_type(c)) {
            types += (types.empty() ? "" : ", ") + std::to_string(count) + "x " + type;
        }
        std::string intra = "-";
        if (c.intra_bandwidth_Bps > 0) intra = gbps(c.intra_bandwidth_Bps) + " Gbps / " + ms(c.intra_latency_s) + " ms";
        out << pad(c.name, wname) << pad(c.region.empty() ? "-" : c.region, wregion) << rpad(std::to_string(c.nodes.size()), 6)
            << rpad(std::to_string(c.total_gpus()), 6) << "  " << pad(types.empty() ? "-" : types, 28) << intra << "\n";
    }
    const size_t n = t.clusters.size();
    out << "\nwidest paths between clusters: bandwidth Gbps / latency ms (* = multi-hop, . = unreachable)\n";
    if (n > kMaxMatrix) {
        out << "(matrix omitted for more than " << kMaxMatrix << " clusters; use --format json)\n";
    } else {
        std::vector<std::vector<std::string>> cell(n, std::vector<std::string>(n));
        size_t w = 6;
        for (size_t a = 0; a < n; ++a) {
            w = std::max(w, t.clusters[a].name.size());
            for (size_t b = 0; b < n; ++b) {
                const PathInfo& p = t.path(static_cast<int>(a), static_cast<int>(b));
                if (a == b) cell[a][b] = "-";
                else if (!p.reachable()) cell[a][b] = ".";
                else cell[a][b] = gbps(p.bandwidth_Bps) + "/" + ms(p.latency_s) + (p.hops > 1 ? "*" : "");
                w = std::max(w, cell[a][b].size());
            }
        }
        out << pad("", wname);
        for (size_t b = 0; b < n; ++b) out << rpad(t.clusters[b].name, w + 1);
        out << "\n";
        for (size_t a = 0; a < n; ++a) {
            out << pad(t.clusters[a].name, wname);
            for (size_t b = 0; b < n; ++b) out << rpad(cell[a][b], w + 1);
            out << "\n";
        }
    }
    // Multi-hop routes and unreachable pairs, each unordered pair once.
    std::vector<std::string> routes, unreachable;
    for (size_t a = 0; a < n; ++a) {
        for (size_t b = a + 1; b < n; ++b) {
            const PathInfo& p = t.path(static_cast<int>(a), static_cast<int>(b));
            if (!p.reachable()) {
                unreachable.push_back(t.clusters[a].name + " - " + t.clusters[b].name);
            } else if (p.hops > 1) {
                std::string r;
                for (int c : t.route(static_cast<int>(a), static_cast<int>(b))) r += (r.empty() ? "" : " > ") + t.clusters[c].name;
                routes.push_back(r + "  (" + gbps(p.bandwidth_Bps) + " Gbps, " + ms(p.latency_s) + " ms)");
            }
        }
    }
    if (n <= kMaxMatrix) {
        out << "\nmulti-hop routes: " << (routes.empty() ? "none" : std::to_string(routes.size())) << "\n";
        for (const auto& r : routes) out << "  " << r << "\n";
    } else {
        out << "\nmulti-hop routes: " << routes.size() << "\n";
    }
    out << "unreachable pairs: " << (unreachable.empty() ? "none" : std::to_string(unreachable.size())) << "\n";
    for (const auto& u : unreachable) out << "  " << u << "\n";
}

void show_json(const Topology& t, const std::string& file, std::ostream& out) {
    using nlohmann::ordered_json;
    ordered_json j;
    j["name"] = t.name;
    j["source"] = file;
    j["total_gpus"] = t.total_gpus();
    ordered_json clusters = ordered_json::array();
    for (const Cluster& c : t.clusters) {
        ordered_json o;
        o["name"] = c.name;
        o["region"] = c.region;
        o["nodes"] = c.nodes.size();
        o["gpus"] = c.total_gpus();
        o["gpu_types"] = gpus_by_type(c);
        o["intra_gbps"] = units::Bps_to_gbps(c.intra_bandwidth_Bps);
        o["intra_latency_ms"] = units::s_to_ms(c.intra_latency_s);
        clusters.push_back(std::move(o));
    }
    j["clusters"] = std::move(clusters);
    ordered_json paths = ordered_json::array();
    const int n = static_cast<int>(t.clusters.size());
    for (int a = 0; a < n; ++a) {
        for (int b = a + 1; b < n; ++b) {
            const PathInfo& p = t.path(a, b);
            ordered_json o;
            o["a"] = t.clusters[a].name;
            o["b"] = t.clusters[b].name;
            o["reachable"] = p.reachable();
            if (p.reachable()) {
                o["gbps"] = units::Bps_to_gbps(p.bandwidth_Bps);
                o["latency_ms"] = units::s_to_ms(p.latency_s);
                o["hops"] = p.hops;
                ordered_json route = ordered_json::array();
                for (int c : t.route(a, b)) route.push_back(t.clusters[c].name);
                o["route"] = std::move(route);
            }
            paths.push_back(std::move(o));
        }
    }
    j["paths"] = std::move(paths);
    out << j.dump(2, ' ', false, ordered_json::error_handler_t::replace) << "\n";
}

int run_show(const std::vector<std::string>& args) {
    std::string reader, format = "text";
    OptionTable opts("spiderflow topo show", kShowUsage, "", 18);
    opts.value("--reader", "NAME", "spiderflow, slurm or hwloc (default: from the file name)", store(&reader));
    opts.value("--format", "FMT", "text (default) or json", one_of(&format, {"text", "json"}));
    opts.words(1);
    const auto p = opts.parse_or_help(args, 1, std::cout);
    if (!p) return kExitOk;
    const std::string file = p->words.empty() ? "" : p->words[0];
    if (file.empty()) usage_error("topo show needs a FILE");
    const Topology t = read_topology(file, reader);
    if (format == "json") show_json(t, file, std::cout);
    else show_text(t, file, std::cout);
    return kExitOk;
}

int run_generate(const std::vector<std::string>& args) {
    GeneratorOptions opt;
    opt.clusters = 0;
    std::string output;
    OptionTable opts("spiderflow topo generate", kGenerateUsage, "", 18);
    opts.value("--clusters", "N", "number of clusters (required)", integer(&opt.clusters, 1, GeneratorOptions::kMaxClusters));
    opts.value("--seed", "S", "random seed (default 1)",
            [&opt](const std::string& v) { opt.seed = static_cast<uint64_t>(int_value<long long>(v, 0)); });
    opts.value("--nearest", "K", "nearest neighbours per cluster in sparse graphs (default 4)", integer(&opt.nearest, 1, 64));
    opts.value("--profile", "P", "metros (default) or decentralized", [&opt](const std::string& v) {
        if (v == "metros") opt.profile = GeneratorOptions::Profile::metros;
        else if (v == "decentralized") opt.profile = GeneratorOptions::Profile::decentralized;
        else usage_error("--profile: expected metros or decentralized, got '" + v + "'");
    });
    opts.value("-o", "FILE", "write to FILE instead of standard output", store(&output));
    opts.value("--output", "FILE", "", store(&output));
    if (!opts.parse_or_help(args, 1, std::cout)) return kExitOk;
    if (opt.clusters == 0) usage_error("topo generate needs --clusters N");
    const Topology t = generate_topology(opt);
    if (output.empty()) {
        std::cout << topology_to_json(t);
    } else {
        write_topology_file(t, output);
        std::cerr << "spiderflow: wrote " << t.clusters.size() << " clusters, " << t.total_gpus() << " GPUs, "
                  << t.links.size() << " links to " << output << "\n";
    }
    return kExitOk;
}

int run_topo(const std::vector<std::string>& args) {
    if (args.size() < 2 || args[1] == "--help" || args[1] == "-h" || args[1] == "help") {
        (args.size() < 2 ? std::cerr : std::cout) << kUsage;
        return args.size() < 2 ? kExitBadInput : kExitOk;
    }
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (args[1] == "show") return run_show(rest);
    if (args[1] == "generate") return run_generate(rest);
    if (args[1] == "check") return run_topo_check(rest);
    std::cerr << "spiderflow: unknown topo subcommand '" << args[1] << "'\n" << kUsage;
    return kExitBadInput;
}

const Registration reg{"topo", "show, generate or check a federation topology", &run_topo};

}  // namespace
}  // namespace spiderflow::cli
