// Co-allocation decisions per second in the broker, with 100 cross-site jobs queued at once.
//
// The broker's decision engine as brokerd runs it (CrossSiteJobs: the co-allocator, every
// decision written to the shipped SQLite store with synchronous=FULL before it counts), driven
// by stand-in clusters that answer every order at once: will-run from their reservations, a
// reservation when the nodes are free at the common start, a part running at the start and done
// 3000 s later. Simulated time moves 5 s a round (the agents' default interval); only the time
// spent inside the broker's calls is measured. A decision is one accepted report or submission,
// each durable when its call returns.
//
// The figure: decisions per second, as a ratio against what 100 queued jobs need when every one
// of their decisions must land within one agent interval (all of them in 5 s).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "common/util/cli_options.h"
#include "services/coalloc/coallocator.h"
#include "services/coalloc/stand_in_cluster.h"
#include "services/broker/broker_store.h"
#include "services/broker/cross_site_jobs.h"

using namespace spiderflow;
using namespace spiderflow::coalloc;
using clock_type = std::chrono::steady_clock;

namespace {

constexpr const char* kHelp =
    "usage: coalloc_bench [--jobs N] [--clusters N] [--nodes N] [--seed S]\n\n"
    "Cross-site jobs through the broker's decision engine and its SQLite store (synchronous=FULL)\n"
    "in a temporary directory, stand-in clusters answering every order at once. Prints decisions\n"
    "per second and latency per call, and the rate as a ratio against 100 jobs' decisions in 5 s.\n"
    "Defaults: 100 jobs, 4 clusters of 16 nodes, seed 7.\n";

double percentile(std::vector<double> v, double p) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[static_cast<size_t>(p * static_cast<double>(v.size() - 1))];
}

}  // namespace

int main(int argc, char** argv) {
    int jobs = 100, clusters = 4, nodes = 16;
    unsigned seed = 7;
    cli::OptionTable options("coalloc_bench", kHelp);
    options.value("--jobs", "N", "", cli::integer(&jobs, 1));
    options.value("--clusters", "N", "", cli::integer(&clusters, 2));
    options.value("--nodes", "N", "", cli::integer(&nodes, 2));
    options.value("--seed", "S", "", cli::integer(&seed, 0u));
    if (const auto status = cli::parse_main(options, argc, argv)) return *status;
    char dir[] = "/tmp/sf_coalloc_bench_XXXXXX";
    if (::mkdtemp(dir) == nullptr) return 1;
    const std::string db = std::string(dir) + "/broker.db";
    auto store = broker::open_store(db);
    broker::CrossSiteJobs broker(*store, Policy{});

    auto name_of = [](int c) { return "c" + std::to_string(c); };
    std::vector<StandInCluster> sites;
    for (int c = 0; c < clusters; ++c) sites.emplace_back(name_of(c), nodes);
    std::mt19937 rng(seed);
    int64_t now = 1800000000;
    std::vector<double> call_ms;
    int64_t decisions = 0;
    auto timed = [&](auto&& call) {
        const auto t0 = clock_type::now();
        call();
        call_ms.push_back(std::chrono::duration<double, std::milli>(clock_type::now() - t0).count());
    };

    for (int j = 0; j < jobs; ++j) {
        XJob x;
        const int a = static_cast<int>(rng() % static_cast<unsigned>(clusters));
        int b = static_cast<int>(rng() % static_cast<unsigned>(clusters - 1));
        if (b >= a) ++b;
        x.id = name_of(a) + ":" + std::to_string(1000 + j);
        x.user = "alice";
        x.time_limit_s = 3600;
        x.script = "#!/bin/sh\nsrun train.sh\n";
        const int na = 2 + static_cast<int>(rng() % static_cast<unsigned>(nodes / 2));
        const int nb = 2 + static_cast<int>(rng() % static_cast<unsigned>(nodes / 2));
        x.parts.push_back(Part{PartSpec{name_of(a), na, 8, na * 8}});
        x.parts.push_back(Part{PartSpec{name_of(b), nb, 8, nb * 8}});
        timed([&] { broker.submit(x, now, ""); });
        ++decisions;
    }

    const auto wall0 = clock_type::now();
    int rounds = 0;
    auto done = [&] {
        for (const auto& [id, job] : broker.jobs().jobs()) {
            if (!finished(job.state)) return false;
        }
        return true;
    };
    while (!done() && rounds < 200000) {
        ++rounds;
        now += 5;
        for (int c = 0; c < clusters; ++c) {
            StandInCluster& site = sites[static_cast<size_t>(c)];
            std::vector<Report> reports;
            for (const Order& o : broker.orders_for(site.name())) {
                if (auto r = site.answer(o, now, static_cast<uint32_t>(rounds))) reports.push_back(*r);
            }
            for (const Report& e : site.parts_done(broker.jobs().jobs(), now, 3000)) reports.push_back(e);
            if (reports.empty()) continue;
            timed([&] { decisions += broker.report(name_of(c), reports, now, "").first; });
        }
        timed([&] { broker.step(now, {}, ""); });
        for (StandInCluster& site : sites) site.expire(now);
    }
    const double wall_s = std::chrono::duration<double>(clock_type::now() - wall0).count();
    double broker_s = 0;
    for (double ms : call_ms) broker_s += ms / 1000;
    int completed = 0, failed = 0, attempts = 0;
    std::map<std::string, int> reasons;
    for (const auto& [id, job] : broker.jobs().jobs()) {
        completed += job.state == XJobState::Completed;
        failed += job.state == XJobState::Failed;
        attempts += job.attempt;
        if (job.state == XJobState::Failed) reasons[job.reason.substr(0, job.reason.find(" (last"))] += 1;
    }
    const double rate = static_cast<double>(decisions) / broker_s;
    const double need = static_cast<double>(decisions) / 5.0;
    std::printf("coalloc_bench: %d cross-site jobs on %d clusters of %d nodes, SQLite synchronous=FULL (%s)\n", jobs,
                clusters, nodes, db.c_str());
    std::printf("  jobs completed %d, failed %d; %d attempts in all (%.2f per job); simulated makespan %.1f h\n",
                completed, failed, attempts, static_cast<double>(attempts) / jobs,
                static_cast<double>(rounds) * 5 / 3600);
    for (const auto& [why, n] : reasons) std::printf("  failed: %d x %s\n", n, why.c_str());
    std::printf("  decisions (accepted reports and submissions, each durable): %lld in %.2f s inside the broker "
                "(%.2f s wall with the stand-in clusters)\n",
                static_cast<long long>(decisions), broker_s, wall_s);
    std::printf("  broker calls: %zu, latency p50 %.2f ms, p99 %.2f ms, max %.2f ms\n", call_ms.size(),
                percentile(call_ms, 0.5), percentile(call_ms, 0.99), percentile(call_ms, 1.0));
    std::printf("  decisions per second: %.0f; needed for all %d jobs' decisions within one 5 s agent interval: "
                "%.0f; ratio %.2f\n",
                rate, jobs, need, rate / need);
    std::system(("rm -rf " + std::string(dir)).c_str());
    return completed == jobs ? 0 : 1;
}
