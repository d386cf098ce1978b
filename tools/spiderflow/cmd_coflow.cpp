// `spiderflow coflow ...`: coflow schedulers, traces, the flow-level simulator, and enforcement
// of a schedule as traffic classes (NCCL environment, Linux tc on the WAN interface).
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <numeric>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "common/coflow/llm_traffic.h"
#include "common/coflow/network.h"
#include "common/coflow/scheduler.h"
#include "common/coflow/simulator.h"
#include "common/coflow/trace.h"
#include "common/coflow/traffic_class.h"
#include "common/model/catalog.h"
#include "common/plan/plan_json.h"
#include "common/topology/reader.h"
#include "common/util/cli_options.h"
#include "common/util/errors.h"
#include "common/util/split_list.h"
#include "common/util/text_file.h"
#include "common/util/units.h"
#include "services/launch/launch_env.h"
#include "services/slurmjob/job_traffic.h"
#include "services/slurmjob/spiderflow_conf.h"
#include "tools/spiderflow/command.h"

namespace spiderflow::cli {
namespace {

using namespace spiderflow::coflow;

constexpr const char* kUsage =
    "usage: spiderflow coflow schedulers\n"
    "       spiderflow coflow trace-gen [--ports N] [--coflows N] [--interarrival-ms MS] [--seed S] [-o FILE]\n"
    "       spiderflow coflow simulate --trace FILE [--scheduler NAME|all] [--port-gbps G] [--check]\n"
    "                [--csv FILE] [--progress | --no-progress]\n"
    "       spiderflow coflow simulate-plans --topology FILE --plans A.json,B.json,... [--iterations N]\n"
    "                [--arrival-gap S] [--scheduler NAME|all] [--check]\n"
    "       spiderflow coflow classes --jobs ID,ID,... [--groups]\n"
    "       spiderflow coflow tc setup|install|change|remove|clear --dev IF [options] [--dry-run]\n"
    "       spiderflow coflow set-class --job ID --level L [--share F] [--dev IF] [--link-mbit R]\n"
    "                [--match dscp|fwmark] [--dry-run]\n\n";

// One table per subcommand, each with the help of all of them (the usage above lists the options).
OptionTable coflow_table(const std::string& sub) {
    OptionTable t("spiderflow coflow " + sub, kUsage, "", 14);
    t.line("schedulers", "list the coflow schedulers the simulator and the controller can use");
    t.line("trace-gen", "write a synthetic trace in the coflow-benchmark format (Varys/Aalo/Sincronia)");
    t.line("simulate",
           "run a trace on a big switch of 1 Gbps ports: average and p95 coflow completion\n"
           "time per scheduler and the factor over fair sharing (fair runs too when one\n"
           "other scheduler is named, as the reference); --check verifies capacity and\n"
           "work conservation at every event; --csv writes one row per coflow and\n"
           "scheduler; a progress line goes to stderr when it is a terminal (--progress\n"
           "forces it, --no-progress stops it)");
    t.line("simulate-plans",
           "run training jobs given as plans (`spiderflow plan` JSON) together on the\n"
           "topology's WAN links: average JCT and iteration time per scheduler, the factor\n"
           "over fair sharing; job k arrives at k x arrival-gap seconds (default 0)");
    t.line("classes",
           "traffic classes for jobs listed highest priority first: NCCL_IB_TC/NCCL_IB_SL\n"
           "per job, or with --groups one class per communicator group (NCCL >= 2.26;\n"
           "then leave NCCL_IB_TC/SL unset)");
    t.line("tc",
           "Linux traffic control for socket transports on the WAN interface:\n"
           "  setup   --dev IF --link-mbit R             HTB root + default class\n"
           "  install --dev IF --link-mbit R --job N [--level L] [--share F] [--dscp D]\n"
           "          [--match dscp|fwmark]              add a job's class and filter\n"
           "  change  (same options as install)          change a running job's class\n"
           "  remove  --dev IF --job N                   drop a job's class and filter\n"
           "  clear   --dev IF                           remove everything from IF\n"
           "--dry-run prints the tc commands instead of running them.");
    t.line("set-class",
           "change a running job's WAN class on this node to level L (0 = highest .. 5 =\n"
           "best effort; share from the level unless --share): interface, rate and match\n"
           "from the site config (wan_interface, wan_rate_mbit, tc_match) unless given; the\n"
           "job must have a class there (set up at job start by the SPANK plugin); with\n"
           "DSCP matching the filter keeps the DSCP the job's packets carry.");
    const auto values = [&t](std::initializer_list<const char*> names) {
        for (const char* n : names) t.value(n, "", "");
    };
    const auto flags = [&t](std::initializer_list<const char*> names) {
        for (const char* n : names) t.flag(n, "");
    };
    if (sub == "trace-gen") values({"--ports", "--coflows", "--interarrival-ms", "--seed", "-o"});
    if (sub == "simulate") {
        values({"--trace", "--scheduler", "--port-gbps", "--csv"});
        flags({"--check", "--progress", "--no-progress"});
    }
    if (sub == "simulate-plans") {
        values({"--topology", "--plans", "--iterations", "--arrival-gap", "--scheduler"});
        flags({"--check"});
    }
    if (sub == "classes") {
        values({"--jobs"});
        flags({"--groups"});
    }
    if (sub == "tc" || sub == "set-class") {
        values({"--dev", "--link-mbit", "--job", "--level", "--share", "--match"});
        flags({"--dry-run"});
    }
    if (sub == "tc") {
        values({"--dscp"});
        t.words(1);
    }
    return t;
}

int cmd_schedulers() {
    for (const auto& n : scheduler_names()) std::printf("%-10s %s\n", n.c_str(), scheduler_summary(n).c_str());
    return kExitOk;
}

int cmd_trace_gen(const Parsed& o) {
    TraceGenOptions g;
    g.ports = o.integer("--ports", g.ports, 1);
    g.coflows = o.integer("--coflows", g.coflows, 0);
    g.mean_interarrival_ms = o.number("--interarrival-ms", g.mean_interarrival_ms, 0);
    g.seed = static_cast<uint64_t>(o.integer<long long>("--seed", 1, 0));
    const std::string text = generate_trace(g);
    const std::string out = o.get("-o");
    if (out.empty()) {
        std::cout << text;
        return kExitOk;
    }
    std::ofstream f(out);
    if (!(f << text)) throw InputError(out, 0, "-o", "cannot write");
    std::cerr << "spiderflow: wrote " << g.coflows << " coflows on " << g.ports << " ports to " << out << "\n";
    return kExitOk;
}

std::vector<std::string> scheduler_list(const std::string& which);

int cmd_simulate(const Parsed& o) {
    const std::string path = o.get("--trace");
    if (path.empty()) throw InputError("command line", 0, "--trace", "a trace file is required");
    const Trace trace = read_trace(path);
    const Network net = Network::big_switch(trace.ports, units::gbps_to_Bps(o.number("--port-gbps", 1)));
    Workload w;
    w.coflows = trace.coflows;
    const std::vector<std::string> names = scheduler_list(o.get("--scheduler", "all"));
    SimOptions so;
    so.check_invariants = o.flag("--check");
    const bool progress = o.flag("--progress") || (!o.flag("--no-progress") && ::isatty(STDERR_FILENO));
    std::string running;
    if (progress) {
        so.progress = [&](const SimProgress& p) {
            std::fprintf(stderr, "\rspiderflow: %-9s %zu of %zu coflows done, %ld flow events, %.0f s simulated, %.0f s  ",
                         running.c_str(), p.coflows_done, trace.coflows.size(), p.flow_events, p.sim_s, p.wall_s);
        };
    }
    const std::string csv_path = o.get("--csv");
    std::ofstream csv;
    if (!csv_path.empty()) {
        csv.open(csv_path);
        if (!(csv << "scheduler,coflow,release_s,finish_s,cct_s,bytes\n")) throw InputError(csv_path, 0, "--csv", "cannot write");
    }
    double fair_avg = 0, fair_p95 = 0;
    std::printf("%-10s %10s %10s %9s %9s %10s %12s%s\n", "scheduler", "avg_cct_s", "p95_cct_s", "fair/avg", "fair/p95",
                "events", "events/s", so.check_invariants ? "  max_load  wc_violations" : "");
    int status = kExitOk;
    for (const auto& n : names) {
        auto s = make_scheduler(n);
        running = n;
        const SimResult r = simulate(net, w, *s, so);
        if (progress) std::fprintf(stderr, "\r%120s\r", "");
        std::vector<double> cct;
        for (const auto& c : r.coflows) {
            cct.push_back(c.cct_s());
            if (csv.is_open()) csv << n << ',' << c.id << ',' << c.release_s << ',' << c.finish_s << ',' << c.cct_s() << ',' << c.bytes << '\n';
        }
        std::sort(cct.begin(), cct.end());
        const double avg = cct.empty() ? 0 : std::accumulate(cct.begin(), cct.end(), 0.0) / cct.size();
        const double p95 = cct.empty() ? 0 : cct[static_cast<size_t>(0.95 * (cct.size() - 1))];
        if (n == "fair") fair_avg = avg, fair_p95 = p95;
        std::printf("%-10s %10.3f %10.3f %9.2f %9.2f %10ld %12.0f", n.c_str(), avg, p95,
                    fair_avg > 0 && avg > 0 ? fair_avg / avg : 0, fair_p95 > 0 && p95 > 0 ? fair_p95 / p95 : 0,
                    r.stats.flow_events, r.stats.flow_events / std::max(1e-9, r.stats.wall_s));
        if (so.check_invariants) {
            std::printf("  %8.6f  %ld", r.stats.max_link_load, r.stats.work_conservation_violations);
            if (r.stats.max_link_load > 1 + 1e-9 || r.stats.work_conservation_violations) status = kExitFindings;
        }
        std::printf("\n");
        if (r.coflows.size() != trace.coflows.size()) {
            std::fprintf(stderr, "spiderflow: %s completed %zu of %zu coflows\n", n.c_str(), r.coflows.size(),
                         trace.coflows.size());
            status = kExitFindings;
        }
    }
    if (csv.is_open() && !csv.flush()) throw InputError(csv_path, 0, "--csv", "cannot write");
    return status;
}

std::vector<std::string> scheduler_list(const std::string& which) {
    // fair first, also when one other scheduler is named: the others are reported against it.
    std::vector<std::string> names = which == "all" ? scheduler_names() : std::vector<std::string>{which};
    if (auto f = std::find(names.begin(), names.end(), "fair"); f != names.end()) names.erase(f);
    names.insert(names.begin(), "fair");
    for (const auto& n : names) make_scheduler(n);   // a bad name fails before any output
    return names;
}

int cmd_simulate_plans(const Parsed& o) {
    const std::string topo_path = o.get("--topology");
    if (topo_path.empty()) throw InputError("command line", 0, "--topology", "a topology file is required");
    const std::vector<std::string> plan_paths = split_list(o.get("--plans"));
    if (plan_paths.empty()) throw InputError("command line", 0, "--plans", "at least one plan file is required");
    const int iterations = o.integer("--iterations", 20, 1);
    const double gap = o.number("--arrival-gap", 0);
    const std::vector<std::string> names = scheduler_list(o.get("--scheduler", "all"));
    const Topology topo = read_topology(topo_path);
    const Catalog& cat = Catalog::builtin();
    const Network net = Network::from_topology(topo);
    Workload w;
    for (size_t k = 0; k < plan_paths.size(); ++k) {
        const Plan plan = plan_from_json(read_text_file(plan_paths[k], "plan file"), plan_paths[k], &topo);
        // Compute windows from the slowest GPU type among the plan's cells.
        double flops = 0;
        for (const auto& cell : plan.cells) {
            const auto& node = topo.clusters.at(cell.cluster).nodes.at(cell.node);
            const GpuType* g = cat.gpu(node.gpu_type);
            if (!g) throw InputError(plan_paths[k], 0, "cells", "unknown GPU type '" + node.gpu_type + "'");
            const double f = g->peak_flops * g->efficiency;
            flops = flops == 0 ? f : std::min(flops, f);
        }
        LlmJobOptions jo;
        jo.name = plan_paths[k];
        jo.arrival_s = gap * static_cast<double>(k);
        jo.iterations = iterations;
        jo.topology = &topo;   // the routes net = from_topology(topo) holds for each kind of traffic
        IterationTraffic traffic;
        PeriodicJob job = build_llm_job(plan, stage_times_from_flops(plan, flops), jo, &traffic);
        job.period_s = measure_period(net, job);
        std::printf("job %zu %s: tp %d pp %d dp %d, WAN per iteration PP %.3f GB DP %.3f GB EP %.3f GB, "
                    "compute %.3f s, alone %.3f s/iteration\n",
                    k, plan_paths[k].c_str(), plan.tp, plan.pp, plan.dp, traffic.pp_bytes / 1e9, traffic.dp_bytes / 1e9,
                    traffic.ep_bytes / 1e9, job.compute_s_per_iteration, job.period_s);
        w.jobs.push_back(std::move(job));
    }
    SimOptions so;
    so.check_invariants = o.flag("--check");
    std::printf("%-10s %12s %12s %9s %9s %10s%s\n", "scheduler", "avg_jct_s", "avg_iter_s", "fair/jct", "fair/iter",
                "events/s", so.check_invariants ? "  max_load  wc_violations" : "");
    double fair_jct = 0, fair_iter = 0;
    int status = kExitOk;
    for (const auto& n : names) {
        auto s = make_scheduler(n);
        const SimResult r = simulate(net, w, *s, so);
        double jct = 0, iter = 0;
        for (const auto& j : r.jobs) {
            jct += j.jct_s() / r.jobs.size();
            iter += j.mean_iteration_s() / r.jobs.size();
        }
        if (n == "fair") fair_jct = jct, fair_iter = iter;
        std::printf("%-10s %12.2f %12.3f %9.3f %9.3f %10.0f", n.c_str(), jct, iter, fair_jct > 0 ? fair_jct / jct : 0,
                    fair_iter > 0 ? fair_iter / iter : 0, r.stats.flow_events / std::max(1e-9, r.stats.wall_s));
        if (so.check_invariants) {
            std::printf("  %8.6f  %ld", r.stats.max_link_load, r.stats.work_conservation_violations);
            if (r.stats.max_link_load > 1 + 1e-9 || r.stats.work_conservation_violations) status = kExitFindings;
        }
        std::printf("\n");
    }
    return status;
}

std::vector<int> parse_jobs(const Parsed& o) {
    std::vector<int> jobs;
    for (const std::string& id : split_list(o.get("--jobs"))) {
        try {
            jobs.push_back(int_value(id, 1));
        } catch (const BadValue& e) {
            o.refuse("--jobs", e.what());
        }
    }
    if (jobs.empty()) throw InputError("command line", 0, "--jobs", "no job ids given");
    return jobs;
}

int cmd_classes(const Parsed& o) {
    for (const auto& c : classes_for_order(parse_jobs(o))) {
        std::printf("job %d level %d dscp %d share %.3f", c.job, c.level, c.dscp, c.share);
        for (const auto& [k, v] : o.flag("--groups") ? nccl_group_env(c) : nccl_job_env(c))
            std::printf(" %s=%s", k.c_str(), v.c_str());
        std::printf("\n");
    }
    return kExitOk;
}

// Prints the commands (--dry-run) or runs them, each logged to stderr first.
int run_or_print(const std::vector<TcCommand>& cmds, bool dry_run) {
    if (dry_run) {
        for (const auto& c : cmds) std::printf("%s\n", to_string(c.argv).c_str());
        return kExitOk;
    }
    ProcessRunner runner;
    const std::string err = run_tc_commands(cmds, runner, [](const std::string& line) {
        std::fprintf(stderr, "spiderflow: %s\n", line.c_str());
    });
    if (err.empty()) return kExitOk;
    std::fprintf(stderr, "spiderflow: %s\n", err.c_str());
    return kExitFindings;
}

int cmd_tc(const Parsed& o) {
    if (o.words.empty()) throw InputError("command line", 0, "tc", "expected setup|install|change|remove|clear");
    const std::string action = o.words[0];
    TcLink link;
    link.dev = o.get("--dev");
    link.rate_mbit = o.number("--link-mbit", 0);
    std::vector<TcCommand> cmds;
    if (action == "setup") {
        cmds = tc_setup(link);
    } else if (action == "install" || action == "change") {
        TrafficClass c;
        c.job = o.integer("--job", 0, 0);
        c.level = o.integer("--level", 0, 0);
        c.dscp = o.integer("--dscp", dscp_for_level(c.level), 0);
        c.share = o.number("--share", 0.5);
        const std::string m = o.get("--match", "dscp");
        if (m != "dscp" && m != "fwmark") throw InputError("command line", 0, "--match", "expected dscp or fwmark");
        cmds = tc_install(link, c, m == "dscp" ? TcMatch::dscp : TcMatch::fwmark);
    } else if (action == "remove") {
        link.rate_mbit = link.rate_mbit > 0 ? link.rate_mbit : 1;
        cmds = tc_remove(link, o.integer("--job", 0, 0));
    } else if (action == "clear") {
        cmds = tc_clear(link);
    } else {
        throw InputError("command line", 0, "tc", "unknown action '" + action + "' (setup|install|change|remove|clear)");
    }
    return run_or_print(cmds, o.flag("--dry-run"));
}

// `set-class`: the job-level entry point for the controller. The interface, its rate and the
// match come from the site config (traffic_control keys) unless given.
int cmd_set_class(const Parsed& o) {
    slurmjob::SpiderflowConf site;
    const std::string path = slurmjob::spiderflow_conf_path();
    if (::access(path.c_str(), R_OK) == 0) site = slurmjob::load_spiderflow_conf(path);
    TcLink link = slurmjob::wan_link(site);
    link.dev = o.get("--dev", link.dev);
    link.rate_mbit = o.number("--link-mbit", link.rate_mbit);
    if (link.dev.empty())
        throw InputError("command line", 0, "--dev", "no WAN interface: give --dev or set wan_interface in " + path);
    const std::string m = o.get("--match", site.tc_match);
    if (m != "dscp" && m != "fwmark") throw InputError("command line", 0, "--match", "expected dscp or fwmark");
    if (!o.has("--level")) throw InputError("command line", 0, "--level", "a level 0..5 is required");
    std::optional<double> share;
    if (o.has("--share")) share = o.number("--share", 0);
    ProcessRunner runner;
    const auto cmds = slurmjob::change_job_class(link, m == "dscp" ? TcMatch::dscp : TcMatch::fwmark,
                                               o.integer("--job", 0, 0), o.integer("--level", 0, 0), share, runner);
    return run_or_print(cmds, o.flag("--dry-run"));
}

int run_coflow(const std::vector<std::string>& args) {
    if (args.size() < 2 || args[1] == "--help" || args[1] == "-h") {
        (args.size() < 2 ? std::cerr : std::cout) << coflow_table("").help();
        return args.size() < 2 ? kExitBadInput : kExitOk;
    }
    const std::string sub = args[1];
    static const std::vector<std::string> subs{"schedulers", "trace-gen", "simulate", "simulate-plans",
                                               "classes", "tc", "set-class"};
    const OptionTable table = coflow_table(sub);
    if (std::find(subs.begin(), subs.end(), sub) == subs.end()) {
        std::cerr << "spiderflow: unknown coflow subcommand '" << sub << "'\n" << table.help();
        return kExitBadInput;
    }
    const auto parsed = table.parse_or_help(args, 2, std::cout);
    if (!parsed) return kExitOk;
    const Parsed& o = *parsed;
    if (sub == "schedulers") return cmd_schedulers();
    if (sub == "trace-gen") return cmd_trace_gen(o);
    if (sub == "simulate") return cmd_simulate(o);
    if (sub == "simulate-plans") return cmd_simulate_plans(o);
    if (sub == "classes") return cmd_classes(o);
    if (sub == "tc") return cmd_tc(o);
    return cmd_set_class(o);
}

const Registration reg{"coflow", "coflow schedulers, traces, simulator, traffic classes (tc/NCCL)", &run_coflow};

}  // namespace
}  // namespace spiderflow::cli
