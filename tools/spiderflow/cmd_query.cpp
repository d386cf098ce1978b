// `spiderflow query`: replays a script of site-state updates and questions over one topology
// and prints what happens, line by line (the shape of flux-sched's resource-query). Golden
// transcripts of it test SiteState end to end (tests/golden/query/).
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "common/cost/cost_model.h"
#include "common/model/catalog.h"
#include "common/model/job_spec.h"
#include "common/planner/plan_job.h"
#include "common/planner/planner.h"
#include "common/site/node_list.h"
#include "common/site/site_json.h"
#include "common/site/site_state.h"
#include "common/topology/reader.h"
#include "common/util/errors.h"
#include "common/util/parse_number.h"
#include "common/util/units.h"
#include "common/util/cli_options.h"
#include "tools/spiderflow/command.h"

namespace spiderflow::cli {
namespace {

constexpr const char* kUsage =
    "usage: spiderflow query --topology FILE [--state SNAPSHOT] [--now T] [SCRIPT]\n\n"
    "Replays a script over the site state of a topology (empty, or read from a snapshot) and\n"
    "prints each line as '> line' followed by what happened. SCRIPT is a file; without it, or\n"
    "with '-', the script is read from standard input. Times are integer seconds; allocations\n"
    "start at the current time (--now, default 0). Lines:\n\n"
    "  allocate JOB CLUSTER:NODE=GPUS[,NODE=GPUS...] [until T]   hold GPUs for a job\n"
    "  release JOB                        free a job's GPUs\n"
    "  drain NODE [reason]                no new work on NODE (its jobs keep running)\n"
    "  down NODE [reason]                 NODE is down\n"
    "  resume NODE                        NODE is up again\n"
    "  reserve NAME NODE=GPUS,... FROM TO set GPUs aside over [FROM, TO) (TO may be 'forever')\n"
    "  unreserve NAME                     drop a reservation\n"
    "  link A B GBPS MS                   a measured figure for the link between clusters A and B\n"
    "  free [CLUSTER] [at T]              free GPUs per cluster (per node run for one cluster)\n"
    "  plan MODEL GLOBAL_BATCH GPUS [seq S] [at T]   plan on what is free (spinsearch)\n"
    "  show                               nodes, free GPUs and node states per cluster\n"
    "  snapshot                           the site state as a JSON snapshot\n"
    "  # ...                              a comment\n\n"
    "Nodes are CLUSTER:NODE, or NODE when its name is unique; node lists take Slurm hostlists\n"
    "(oregon:or-gpu[001-008]=8). A failing line prints 'error: line N: ...' and the script goes on.\n\n";

constexpr const char* kFooter =
    "\nExit status: 0 every line succeeded, 1 some line failed, 2 bad arguments or input files.\n";

constexpr const char* kSource = "spiderflow query";

[[noreturn]] void usage(const std::string& what) { throw InputError(kSource, 0, "", what); }

SiteTime parse_time(const std::string& s, bool forever_ok) {
    if (forever_ok && s == "forever") return kForever;
    if (const auto v = to_int<SiteTime>(s)) return *v;
    usage("'" + s + "' is not a time (integer seconds" + std::string(forever_ok ? " or 'forever')" : ")"));
}

// GLOBAL_BATCH, GPUS, S of a plan line.
int count(const std::string& what, const std::string& s) {
    return parse_int(s, 1, std::numeric_limits<int>::max(), kSource, 0, what);
}

double figure(const std::string& what, const std::string& s) {
    return parse_number(s, -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(), kSource, 0, what);
}

std::string fixed(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

std::string num(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

std::string join_words(const std::vector<std::string>& w, size_t from) {
    std::string out;
    for (size_t i = from; i < w.size(); ++i) out += (out.empty() ? "" : " ") + w[i];
    return out;
}

// "or-gpu001..or-gpu008" for consecutive node indices of one cluster, comma-joined runs.
std::string node_runs(const Cluster& c, const std::vector<int>& idx) {
    std::string out;
    for (size_t i = 0; i < idx.size();) {
        size_t j = i;
        while (j + 1 < idx.size() && idx[j + 1] == idx[j] + 1) ++j;
        out += (out.empty() ? "" : ",") + c.nodes[static_cast<size_t>(idx[i])].name;
        if (j > i) out += ".." + c.nodes[static_cast<size_t>(idx[j])].name;
        i = j + 1;
    }
    return out;
}

// "64 GPUs on 8 nodes of oregon" style summary of a job's or reservation's shares.
std::string shares_text(const std::vector<NodeShare>& shares) {
    int gpus = 0;
    std::vector<std::string> clusters;
    for (const NodeShare& s : shares) {
        gpus += s.gpus;
        bool seen = false;
        for (const auto& c : clusters) seen = seen || c == s.node.cluster;
        if (!seen) clusters.push_back(s.node.cluster);
    }
    std::string where;
    for (const auto& c : clusters) where += (where.empty() ? "" : "+") + c;
    return std::to_string(gpus) + " GPUs on " + std::to_string(shares.size()) + " node" +
           (shares.size() == 1 ? "" : "s") + " of " + where;
}

struct Session {
    std::shared_ptr<const Topology> topology;
    SiteState state;
    const Catalog& catalog;
    SiteTime now = 0;
    std::ostream& out;

    std::string epoch() const { return "epoch " + std::to_string(state.epoch()); }
};

// `at T` at words[i], if there.
SiteTime optional_at(const std::vector<std::string>& w, size_t i, SiteTime now, const char* use) {
    if (w.size() == i) return now;
    if (w.size() == i + 2 && w[i] == "at") return parse_time(w[i + 1], false);
    usage(std::string("usage: ") + use);
}

void cmd_allocate(Session& s, const std::vector<std::string>& w) {
    const char* use = "allocate JOB CLUSTER:NODE=GPUS[,NODE=GPUS...] [until T]";
    if (!(w.size() == 3 || (w.size() == 5 && w[3] == "until"))) usage(std::string("usage: ") + use);
    const SiteTime end = w.size() == 5 ? parse_time(w[4], true) : kForever;
    const auto shares = parse_node_shares(w[2], s.state.topology());
    s.state.apply(JobAllocated{{w[1], s.now, end, shares}});
    s.out << "allocated " << w[1] << ": " << shares_text(shares) << " until " << time_text(end) << "; " << s.epoch()
          << "\n";
}

void cmd_release(Session& s, const std::vector<std::string>& w) {
    if (w.size() != 2) usage("usage: release JOB");
    auto it = s.state.jobs().find(w[1]);
    const std::string what = it == s.state.jobs().end() ? "" : shares_text(it->second.nodes);
    s.state.apply(JobReleased{w[1]});
    s.out << "released " << w[1] << ": " << what << "; " << s.epoch() << "\n";
}

void set_state(Session& s, const std::vector<std::string>& w, NodeState st, const char* verb, const char* use) {
    if (w.size() < 2 || (st == NodeState::up && w.size() != 2)) usage(std::string("usage: ") + use);
    const NodeName node = parse_node_name(w[1], s.state.topology());
    const std::string reason = join_words(w, 2);
    s.state.apply(NodeStateChanged{node, st, reason, std::nullopt});
    s.out << verb << " " << node.text() << (reason.empty() ? "" : " (" + reason + ")");
    std::string jobs;
    for (const UsageSpan& span : s.state.use(s.state.find(node)).spans) {
        if (!span.reservation) jobs += (jobs.empty() ? "" : ",") + span.owner;
    }
    if (!jobs.empty() && st != NodeState::up) s.out << ", still running " << jobs;
    s.out << "; " << s.epoch() << "\n";
}

void cmd_drain(Session& s, const std::vector<std::string>& w) {
    set_state(s, w, NodeState::drained, "drained", "drain NODE [reason]");
}
void cmd_down(Session& s, const std::vector<std::string>& w) { set_state(s, w, NodeState::down, "down", "down NODE [reason]"); }
void cmd_resume(Session& s, const std::vector<std::string>& w) { set_state(s, w, NodeState::up, "resumed", "resume NODE"); }

void cmd_reserve(Session& s, const std::vector<std::string>& w) {
    if (w.size() != 5) usage("usage: reserve NAME NODE=GPUS,... FROM TO");
    const SiteTime from = parse_time(w[3], false);
    const SiteTime to = parse_time(w[4], true);
    const auto shares = parse_node_shares(w[2], s.state.topology());
    s.state.apply(ReservationAdded{{w[1], from, to, shares}});
    s.out << "reserved " << w[1] << ": " << shares_text(shares) << " from " << time_text(from) << " to "
          << time_text(to) << "; " << s.epoch() << "\n";
}

void cmd_unreserve(Session& s, const std::vector<std::string>& w) {
    if (w.size() != 2) usage("usage: unreserve NAME");
    s.state.apply(ReservationRemoved{w[1]});
    s.out << "removed reservation " << w[1] << "; " << s.epoch() << "\n";
}

void cmd_link(Session& s, const std::vector<std::string>& w) {
    if (w.size() != 5) usage("usage: link A B GBPS MS");
    const double gbps = figure("GBPS", w[3]);
    const double ms = figure("MS", w[4]);
    const Topology& t = s.state.topology();
    const int a = t.cluster_index(w[1]);
    const int b = t.cluster_index(w[2]);
    const auto before = a >= 0 && b >= 0 ? s.state.effective_link(a, b) : std::nullopt;
    s.state.apply(LinkMeasured{{w[1], w[2], units::gbps_to_Bps(gbps), units::ms_to_s(ms), s.now, "query"}});
    s.out << "link " << w[1] << "-" << w[2] << ": measured " << num(gbps) << " Gbps " << num(ms) << " ms (was "
          << num(units::Bps_to_gbps(before->bandwidth_Bps)) << " Gbps " << num(units::s_to_ms(before->latency_s))
          << " ms, " << (before->measured ? "measured" : "nominal") << "); " << s.epoch() << "\n";
}

void cmd_free(Session& s, const std::vector<std::string>& w) {
    const Topology& t = s.state.topology();
    size_t i = 1;
    int only = -1;
    if (w.size() > 1 && w[1] != "at") {
        only = t.cluster_index(w[1]);
        if (only < 0) usage("unknown cluster '" + w[1] + "'");
        i = 2;
    }
    const SiteTime at = optional_at(w, i, s.now, "free [CLUSTER] [at T]");
    if (only >= 0) {
        // Runs of consecutive nodes with equal free counts.
        const Cluster& c = t.clusters[static_cast<size_t>(only)];
        s.out << "free at " << time_text(at) << ": " << c.name << " " << s.state.free_gpus(only, at) << "/"
              << c.total_gpus() << " GPUs:";
        for (size_t n = 0, runs = 0; n < c.nodes.size(); ++runs) {
            const int f = s.state.free_gpus(NodeRef{only, static_cast<int>(n)}, at);
            std::vector<int> run;
            while (n < c.nodes.size() && s.state.free_gpus(NodeRef{only, static_cast<int>(n)}, at) == f &&
                   (run.empty() || c.nodes[n].gpus == c.nodes[static_cast<size_t>(run.front())].gpus)) {
                run.push_back(static_cast<int>(n++));
            }
            s.out << (runs ? ", " : " ") << node_runs(c, run) << " " << f << "/" << c.nodes[static_cast<size_t>(run.front())].gpus;
        }
        s.out << "\n";
        return;
    }
    int free = 0;
    s.out << "free at " << time_text(at) << ":";
    for (size_t c = 0; c < t.clusters.size(); ++c) {
        const int f = s.state.free_gpus(static_cast<int>(c), at);
        free += f;
        s.out << (c ? ", " : " ") << t.clusters[c].name << " " << f << "/" << t.clusters[c].total_gpus();
    }
    s.out << "; total " << free << "/" << t.total_gpus() << "\n";
}

// One line per plan: degrees, where, predicted iteration time; or why no plan exists.
void cmd_plan(Session& s, const std::vector<std::string>& w) {
    const char* use = "plan MODEL GLOBAL_BATCH GPUS [seq S] [at T]";
    if (w.size() < 4) usage(std::string("usage: ") + use);
    JobSpec job;
    const ModelArch* m = s.catalog.model(w[1]);
    if (m == nullptr) usage("unknown model '" + w[1] + "' (see spiderflow catalog models)");
    job.model = *m;
    job.global_batch = count("GLOBAL_BATCH", w[2]);
    job.gpus = count("GPUS", w[3]);
    job.gpu_mode = GpuCountMode::exact;
    size_t i = 4;
    if (w.size() >= 6 && w[4] == "seq") {
        job.seq_len = count("S", w[5]);
        i = 6;
    }
    const SiteTime at = optional_at(w, i, s.now, use);
    job.validate();
    PlanRequest request;
    request.job = job;

    const Topology view = s.state.free_view(at);
    const CostModel cost(view, s.catalog);
    const auto planner = make_planner("spinsearch");
    PlanResult result;
    try {
        result = plan_job(*planner, request, cost);
    } catch (const InfeasibleError& e) {
        s.out << "plan: cannot: " << e.what() << "\n";
        return;
    }
    const Plan& p = result.plan;
    // Nodes used, per cluster in topology order; GPUs per node checked against what is free.
    std::map<int, std::map<int, int>> used;
    for (const StageCell& cell : p.cells) used[cell.cluster][cell.node] += p.tp;
    std::string where;
    for (const auto& [c, nodes] : used) {
        std::vector<int> idx;
        for (const auto& [n, g] : nodes) {
            idx.push_back(n);
            if (g > s.state.free_gpus(NodeRef{c, n}, at)) {
                throw std::logic_error("plan uses " + std::to_string(g) + " GPUs of a node with fewer free");
            }
        }
        const Cluster& cl = view.clusters[static_cast<size_t>(c)];
        where += (where.empty() ? "" : " + ") + cl.name + " " + node_runs(cl, idx) + " (" + std::to_string(idx.size()) +
                 " node" + (idx.size() == 1 ? "" : "s") + ")";
    }
    s.out << "plan: tp=" << p.tp << " pp=" << p.pp << " dp=" << p.dp << " micro-batch " << p.micro_batch << ", "
          << p.world_size() << " GPUs on " << where << "; iteration " << fixed(p.prediction.iteration_s, 3) << " s\n";
}

void cmd_show(Session& s, const std::vector<std::string>& w) {
    if (w.size() != 1) usage("usage: show");
    const Topology& t = s.state.topology();
    s.out << "site " << t.name << " at " << time_text(s.now) << ", " << s.epoch() << "\n";
    for (size_t c = 0; c < t.clusters.size(); ++c) {
        const Cluster& cl = t.clusters[c];
        int counts[3] = {0, 0, 0};
        std::string notes;
        for (size_t n = 0; n < cl.nodes.size(); ++n) {
            const NodeUse& u = s.state.use(NodeRef{static_cast<int>(c), static_cast<int>(n)});
            ++counts[static_cast<int>(u.state)];
            if (u.state != NodeState::up) {
                notes += "    " + cl.nodes[n].name + " " + to_string(u.state) + (u.reason.empty() ? "" : ": " + u.reason) + "\n";
            }
        }
        s.out << "  " << cl.name << ": " << cl.nodes.size() << " nodes (" << counts[0] << " up, " << counts[1]
              << " drained, " << counts[2] << " down), " << s.state.free_gpus(static_cast<int>(c), s.now) << "/"
              << cl.total_gpus() << " GPUs free\n"
              << notes;
    }
    for (const auto& [id, a] : s.state.jobs()) {
        s.out << "  job " << id << ": " << shares_text(a.nodes) << " from " << time_text(a.start) << " until "
              << time_text(a.end) << "\n";
    }
    for (const auto& [name, r] : s.state.reservations()) {
        s.out << "  reservation " << name << ": " << shares_text(r.nodes) << " from " << time_text(r.start) << " to "
              << time_text(r.end) << "\n";
    }
    for (const auto& [li, m] : s.state.measured_links()) {
        s.out << "  link " << m.a << "-" << m.b << ": " << num(units::Bps_to_gbps(m.bandwidth_Bps)) << " Gbps "
              << num(units::s_to_ms(m.latency_s)) << " ms measured at " << time_text(m.timestamp) << " by " << m.source
              << "\n";
    }
}

void cmd_snapshot(Session& s, const std::vector<std::string>& w) {
    if (w.size() != 1) usage("usage: snapshot");
    s.out << site_state_to_json(s.state);
}

using LineFn = void (*)(Session&, const std::vector<std::string>&);
const std::map<std::string, LineFn>& line_commands() {
    static const std::map<std::string, LineFn> table = {
        {"allocate", &cmd_allocate}, {"release", &cmd_release}, {"drain", &cmd_drain},     {"down", &cmd_down},
        {"resume", &cmd_resume},     {"reserve", &cmd_reserve}, {"unreserve", &cmd_unreserve}, {"link", &cmd_link},
        {"free", &cmd_free},         {"plan", &cmd_plan},       {"show", &cmd_show},       {"snapshot", &cmd_snapshot},
    };
    return table;
}

std::vector<std::string> words_of(const std::string& line) {
    std::istringstream in(line);
    std::vector<std::string> w;
    for (std::string word; in >> word;) w.push_back(word);
    return w;
}

// Runs the script; returns the number of failed lines.
int replay(Session& s, std::istream& script) {
    int failed = 0;
    int number = 0;
    for (std::string line; std::getline(script, line);) {
        ++number;
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
        const auto w = words_of(line);
        if (w.empty()) {
            s.out << "\n";
            continue;
        }
        s.out << "> " << line << "\n";
        if (w[0][0] == '#') continue;
        const auto& table = line_commands();
        try {
            auto it = table.find(w[0]);
            if (it == table.end()) usage("unknown command '" + w[0] + "' (see spiderflow query --help)");
            it->second(s, w);
        } catch (const InputError& e) {
            ++failed;
            s.out << "error: line " << number << ": " << (e.field().empty() ? "" : e.field() + ": ") << e.problem()
                  << "\n";
        } catch (const InfeasibleError& e) {
            ++failed;
            s.out << "error: line " << number << ": " << e.what() << "\n";
        }
    }
    return failed;
}

int run_query(const std::vector<std::string>& args) {
    std::string topology_file, reader, state_file, catalog_file;
    SiteTime now = 0;
    OptionTable t(kSource, kUsage, kFooter, 20);
    t.value("--topology", "FILE", "federation topology (spiderflow JSON, slurm.conf or hwloc XML)", store(&topology_file));
    t.value("--reader", "NAME", "topology reader (default: from the file name)", store(&reader));
    t.value("--state", "FILE", "start from this site-state snapshot (doc/site-state.md)", store(&state_file));
    t.value("--catalog", "FILE", "extra GPU/model catalog JSON on top of the built-in one", store(&catalog_file));
    t.value("--now", "T", "the current time (default 0)", integer(&now, std::numeric_limits<SiteTime>::min()));
    t.words(1);
    const auto p = t.parse_or_help(args, 1, std::cout);
    if (!p) return kExitOk;
    const std::string script_file = p->words.empty() ? "" : p->words[0];
    if (topology_file.empty()) throw InputError(kSource, 0, "--topology", "is required");

    auto topology = std::make_shared<const Topology>(read_topology(topology_file, reader));
    const Catalog catalog = catalog_file.empty() ? Catalog::builtin() : Catalog::with_file(catalog_file);
    SiteState state = state_file.empty() ? SiteState(topology) : read_site_state(state_file, topology);
    std::ifstream file;
    if (!script_file.empty() && script_file != "-") {
        file.open(script_file, std::ios::binary);
        if (!file) throw InputError(script_file, 0, "", "cannot open script");
    }
    Session session{topology, std::move(state), catalog, now, std::cout};
    const int failed = replay(session, file.is_open() ? static_cast<std::istream&>(file) : std::cin);
    return failed > 0 ? kExitFindings : kExitOk;
}

const Registration reg{"query", "replay site-state updates and questions (allocate, drain, free, plan)", &run_query};

}  // namespace
}  // namespace spiderflow::cli
