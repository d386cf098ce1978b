// `spiderflow simulate`: a federation over time (services/fedsim): a job stream, a queue, a
// placement policy and a WAN policy; per-job and per-run figures. Also writes job streams
// (gen-trace) and converts a Helios cluster log into one (convert-helios).
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "common/coflow/scheduler.h"
#include "services/fedsim/fed_simulator.h"
#include "services/fedsim/helios_trace.h"
#include "services/fedsim/placement.h"
#include "services/fedsim/run_summary.h"
#include "common/model/catalog.h"
#include "common/site/site_state.h"
#include "common/topology/generator.h"
#include "common/topology/reader.h"
#include "common/util/errors.h"
#include "common/util/split_list.h"
#include "common/util/cli_options.h"
#include "tools/spiderflow/command.h"

namespace spiderflow::cli {
namespace {

using namespace spiderflow::fedsim;

constexpr const char* kUsage =
    "usage: spiderflow simulate (--topology FILE | --clusters N [--topology-seed S])\n"
    "                (--trace FILE | --helios CLUSTER_LOG.csv | --generate N [--seed S] [--load L])\n"
    "                [--policy NAME,...|all] [--network SCHEDULER] [--queue backfill|fifo]\n"
    "                [--planner-time-limit S] [--cross-site-start S] [--slack F|none] [--backfill-depth N]\n"
    "                [--jobs-csv FILE] [--summary-csv FILE] [--timeline-csv FILE] [--decisions-csv FILE]\n"
    "                [--check] [--free-decisions] [--no-timing] [--progress | --no-progress]\n"
    "       spiderflow simulate gen-trace (--topology FILE | --clusters N) [--jobs N] [--seed S]\n"
    "                [--load L] [--gpu-scale F] [--max-gpus N] [--duration-scale F] [-o FILE]\n"
    "       spiderflow simulate convert-helios CLUSTER_LOG.csv (--topology FILE | --clusters N)\n"
    "                [--min-gpus N] [--gpu-scale F] [--max-gpus N] [--max-jobs N] [-o FILE]\n\n"
    "Simulates a federation of Slurm clusters over time: jobs arrive from a trace, wait in a queue\n"
    "(FIFO with EASY backfill by default), are placed by a policy against what is free at that\n"
    "moment, and train for their iterations at the cost model's iteration time, slowed by the\n"
    "jobs they share WAN links with as the flow-level simulator says under --network (a coflow\n"
    "scheduler: `spiderflow coflow schedulers`; default fair).\n\n";

constexpr const char* kFooter =
    "\nOutput is the same for the same inputs, except the wall-clock figures (scheduling\n"
    "overhead) and policies a time limit cuts short.\n";

// The run and its two helpers (gen-trace, convert-helios) share one table: the options each
// takes are in the usage, the lines below explain the run's.
OptionTable simulate_table() {
    OptionTable t("spiderflow simulate", kUsage, kFooter, 22);
    t.value("--topology", "FILE",
            "the federation (`spiderflow topo show`); or --clusters N: a generated\n"
            "one (`spiderflow topo generate`), --topology-seed S (default 1)");
    t.value("--clusters", "N", "");
    t.value("--topology-seed", "S", "");
    t.value("--trace", "FILE",
            "a job stream (CSV; columns in doc/simulate.md); --helios FILE: a Helios\n"
            "cluster_log.csv (converted as convert-helios does); --generate N: N\n"
            "jobs shaped after the Helios traces, --seed S, offered load --load L\n"
            "(GPU-seconds asked per GPU-second; default 0.9)");
    for (const char* n : {"--helios", "--generate", "--seed", "--load"}) t.value(n, "", "");
    t.value("--policy", "LIST",
            "placement policies, each run on the same trace (default spinsearch;\n"
            "all = every one but exhaustive, which only small cases allow, and\n"
            "oracle): slurm-alone, slurm-federation, spinsearch, global-ilp,\n"
            "genetic, greedy, first-fit, the published genetic-dtfm, ilp-oblivious,\n"
            "greedy-atlas, exhaustive; oracle: at each decision the fastest plan\n"
            "any of those planners finds, its decisions free (the yardstick,\n"
            "not a policy)");
    t.value("--network", "SCHEDULER", "");
    t.value("--queue", "", "backfill (default) or fifo");
    // These two start their descriptions further right, as they always have.
    t.value("--planner-time-limit", "S", " each planner call's limit (default: the policy's own)");
    t.value("--cross-site-start", "S",
            "   seconds a cross-site job holds its GPUs before training starts\n"
            "(the broker's common start and the launcher's barrier; default 5)");
    t.value("--slack", "F",
            "planner policies hold a job back from a placement that runs more than\n"
            "(1 + F) x as long as its best while the running jobs' ends say waiting\n"
            "for the best ends sooner (default 0.25; none: start wherever it fits now)");
    t.value("--backfill-depth", "N", "");
    t.value("--jobs-csv", "FILE",
            "one row per job and policy: queueing delay, JCT, iteration time,\n"
            "placement, cross-site or not, why it could not run");
    t.value("--summary-csv", "FILE",
            "one row per policy; --timeline-csv FILE: busy GPUs and tokens/s at\n"
            "every event");
    t.value("--timeline-csv", "FILE", "");
    t.value("--decisions-csv", "FILE",
            "every placement decision: when, the job, what was free per cluster,\n"
            "the plan chosen and its predicted iteration time, wall time, whether\n"
            "the planner's time limit cut it short, why none");
    t.flag("--check", "verify at every event that no cluster's GPUs are over-allocated");
    t.flag("--free-decisions",
           "decisions cost no simulated time (default: each placement decision\n"
           "takes its measured wall time on the scheduler's clock, one at a time,\n"
           "as a controller's would; that makes a run depend on this machine)");
    t.flag("--no-timing", "leave the wall-clock figures out of the text, and charge no\n"
                          "decision time (--free-decisions): output that diffs");
    t.flag("--progress", "a progress line on stderr (default when stderr is a terminal)");
    t.flag("--no-progress", "");
    // gen-trace and convert-helios
    for (const char* n : {"--jobs", "--gpu-scale", "--max-gpus", "--duration-scale", "--min-gpus", "--max-jobs", "-o"}) {
        t.value(n, "", "");
    }
    t.words(2);   // gen-trace, or convert-helios CLUSTER_LOG.csv
    return t;
}

Topology federation(const Parsed& o) {
    if (!o.get("--topology").empty()) {
        if (!o.get("--clusters").empty())
            throw InputError("command line", 0, "--clusters", "give --topology or --clusters, not both");
        return read_topology(o.get("--topology"));
    }
    if (o.get("--clusters").empty())
        throw InputError("command line", 0, "--topology", "the federation is required: --topology FILE or --clusters N");
    GeneratorOptions g;
    g.clusters = o.integer("--clusters", 8, 1);
    g.seed = static_cast<uint64_t>(o.integer<long long>("--topology-seed", 1, 0));
    return generate_topology(g);
}

std::vector<HomeCluster> homes_of(const Topology& t) {
    std::vector<HomeCluster> h;
    for (const auto& c : t.clusters) h.push_back({c.name, c.total_gpus()});
    return h;
}

void write_out(const std::string& path, const std::string& text, const std::string& what) {
    if (path.empty() || path == "-") {
        std::cout << text;
        return;
    }
    std::ofstream f(path);
    if (!(f << text)) throw InputError(path, 0, "", "cannot write " + what);
}

HeliosGenOptions gen_options(const Parsed& o, const Topology& t, const char* jobs_key) {
    HeliosGenOptions g;
    g.homes = homes_of(t);
    g.jobs = o.integer(jobs_key, 100, 1);
    g.seed = static_cast<uint64_t>(o.integer<long long>("--seed", 1, 0));
    g.load = o.number("--load", g.load);
    g.gpu_scale = o.number("--gpu-scale", 1, 0);
    g.max_gpus = o.integer("--max-gpus", 0, 0);
    g.duration_scale = o.number("--duration-scale", 1, 0);
    return g;
}

HeliosReadOptions helios_options(const Parsed& o, const Topology& t) {
    HeliosReadOptions h;
    h.homes = homes_of(t);
    h.min_gpus = o.integer("--min-gpus", h.min_gpus, 1);
    h.gpu_scale = o.number("--gpu-scale", 1, 0);
    h.max_gpus = o.integer("--max-gpus", 0, 0);
    h.max_jobs = static_cast<size_t>(o.integer<long long>("--max-jobs", 0, 0));
    return h;
}

int cmd_gen_trace(const Parsed& o) {
    const Topology t = federation(o);
    const JobTrace trace = generate_helios_like(gen_options(o, t, "--jobs"));
    write_out(o.get("-o"), job_trace_csv(trace), "the trace");
    if (!o.get("-o").empty())
        std::cerr << "spiderflow: wrote " << trace.jobs.size() << " jobs over " << t.clusters.size() << " clusters to "
                  << o.get("-o") << "\n";
    return kExitOk;
}

int cmd_convert_helios(const Parsed& o) {
    if (o.words.size() != 2) throw InputError("command line", 0, "", "convert-helios takes one CLUSTER_LOG.csv");
    const Topology t = federation(o);
    const JobTrace trace = read_helios_log(o.words[1], helios_options(o, t));
    write_out(o.get("-o"), job_trace_csv(trace), "the trace");
    std::cerr << "spiderflow: converted " << trace.jobs.size() << " jobs of " << o.words[1] << "\n";
    return kExitOk;
}

std::vector<std::string> policy_list(const std::string& which) {
    if (which == "all") {   // exhaustive refuses federations; the oracle runs every search per decision
        std::vector<std::string> all = placement_names();
        for (const char* slow : {"exhaustive", "oracle"}) all.erase(std::remove(all.begin(), all.end(), slow), all.end());
        return all;
    }
    std::vector<std::string> names = split_list(which);
    if (names.empty()) throw InputError("command line", 0, "--policy", "no policy named");
    for (const auto& n : names) make_placement(n, 0, 1);   // refuses unknown names before any run
    return names;
}

std::string prefixed(const std::string& policy, const std::string& csv, bool header) {
    std::istringstream in(csv);
    std::string line, out;
    bool first = true;
    while (std::getline(in, line)) {
        if (first) {
            first = false;
            if (header) out += "policy," + line + "\n";
            continue;
        }
        out += policy + "," + line + "\n";
    }
    return out;
}

int cmd_run(const Parsed& o) {
    const Catalog& catalog = Catalog::builtin();
    const Topology topo = federation(o);
    JobTrace trace;
    const int sources = !o.get("--trace").empty() + !o.get("--helios").empty() + !o.get("--generate").empty();
    if (sources != 1)
        throw InputError("command line", 0, "--trace", "give exactly one job source: --trace, --helios or --generate");
    if (!o.get("--trace").empty()) trace = read_job_trace(o.get("--trace"), catalog);
    else if (!o.get("--helios").empty()) trace = read_helios_log(o.get("--helios"), helios_options(o, topo));
    else trace = generate_helios_like(gen_options(o, topo, "--generate"));
    check_homes(trace, topo);
    FedSimOptions so;
    so.network = o.get("--network", "fair");
    coflow::make_scheduler(so.network);   // an unknown name fails here, listing the known ones
    const std::string queue = o.get("--queue", "backfill");
    if (queue != "backfill" && queue != "fifo")
        throw InputError("command line", 0, "--queue", "expected backfill or fifo, got '" + queue + "'");
    so.backfill = queue == "backfill";
    so.backfill_depth = o.integer("--backfill-depth", so.backfill_depth, 0);
    so.planner_time_limit_s = o.number("--planner-time-limit", 0, 0);
    so.cross_site_start_s = o.number("--cross-site-start", so.cross_site_start_s, 0);
    so.slack = o.get("--slack") == "none" ? -1 : o.number("--slack", so.slack, 0);
    so.seed = static_cast<uint64_t>(o.integer<long long>("--seed", 1, 0));
    so.check_invariants = o.flag("--check");
    so.charge_decision_time = !o.flag("--free-decisions") && !o.flag("--no-timing");
    so.log_decisions = !o.get("--decisions-csv").empty();
    // A path that cannot be written is refused before the simulation, not after an hour of it.
    for (const char* opt : {"--jobs-csv", "--summary-csv", "--timeline-csv", "--decisions-csv"}) {
        const std::string path = o.get(opt);
        if (!path.empty() && path != "-" && !std::ofstream(path, std::ios::app))
            throw InputError(path, 0, "", std::string("cannot write here (") + opt + ")");
    }
    const bool progress = o.flag("--progress") || (!o.flag("--no-progress") && isatty(STDERR_FILENO));
    const std::vector<std::string> policies = policy_list(o.get("--policy", "spinsearch"));
    const SiteState site(std::make_shared<const Topology>(topo));
    std::printf("federation %s: %zu clusters, %d GPUs; %zu jobs from %s; network %s, queue %s\n\n", topo.name.c_str(),
                topo.clusters.size(), topo.total_gpus(), trace.jobs.size(), trace.source.c_str(), so.network.c_str(),
                queue.c_str());
    std::string jobs_out, summary_out = summary_csv_header(), timeline_out, decisions_out;
    int status = kExitOk;
    for (size_t k = 0; k < policies.size(); ++k) {
        so.placement = policies[k];
        if (progress)
            so.progress = [&](const FedSimProgress& p) {
                std::fprintf(stderr, "\r%s: simulated %.0f s, %zu/%zu jobs done, %zu running, %zu queued (%.0f s)   ",
                             so.placement.c_str(), p.sim_s, p.done, p.total, p.running, p.queued, p.wall_s);
            };
        const FedSimResult r = simulate_federation(site, trace, catalog, so);
        if (progress) std::fprintf(stderr, "\r%80s\r", "");
        std::printf("%s", summary_text(r.summary, !o.flag("--no-timing")).c_str());
        if (r.summary.invariant_violations) {
            std::printf("  INVARIANT VIOLATIONS: %ld (GPUs over-allocated or a plan refused)\n",
                        r.summary.invariant_violations);
            status = kExitFindings;
        }
        jobs_out += prefixed(policies[k], jobs_csv(r), k == 0);
        summary_out += summary_csv_row(r.summary);
        timeline_out += prefixed(policies[k], timeline_csv(r), k == 0);
        decisions_out += prefixed(policies[k], decisions_csv(r), k == 0);
    }
    if (!o.get("--jobs-csv").empty()) write_out(o.get("--jobs-csv"), jobs_out, "the per-job CSV");
    if (!o.get("--summary-csv").empty()) write_out(o.get("--summary-csv"), summary_out, "the summary CSV");
    if (!o.get("--timeline-csv").empty()) write_out(o.get("--timeline-csv"), timeline_out, "the timeline CSV");
    if (!o.get("--decisions-csv").empty()) write_out(o.get("--decisions-csv"), decisions_out, "the decisions CSV");
    return status;
}

int run_simulate(const std::vector<std::string>& args) {
    try {
        const auto parsed = simulate_table().parse_or_help(args, 1, std::cout);
        if (!parsed) return kExitOk;
        const Parsed& o = *parsed;
        const std::string what = o.words.empty() ? "" : o.words[0];
        if (what == "gen-trace") return cmd_gen_trace(o);
        if (what == "convert-helios") return cmd_convert_helios(o);
        if (!what.empty())
            throw InputError("command line", 0, what, "unknown word (expected gen-trace, convert-helios or options)");
        return cmd_run(o);
    } catch (const OptionError&) {
        throw;   // worded as every command's
    } catch (const InputError& e) {
        std::fprintf(stderr, "spiderflow simulate: %s\n", e.what());
        return kExitBadInput;
    }
}

const Registration reg{"simulate", "simulate a federation over time: JCT, throughput, overhead per policy", &run_simulate};

}  // namespace
}  // namespace spiderflow::cli
