// Small federations whose outcomes can be worked out by hand, for the federation simulator's
// tests.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "services/fedsim/helios_trace.h"
#include "services/fedsim/job_trace.h"
#include "common/site/site_state.h"
#include "common/topology/topology.h"

namespace spiderflow::fedsim::fedtest {

// Clusters named as given, each `nodes` nodes of 8 H100-SXM on one switch, every pair linked at
// `gbps` and 10 ms.
inline Topology federation(const std::vector<std::string>& names, int nodes, double gbps = 100) {
    Topology t;
    t.name = "test-federation";
    for (const auto& n : names) {
        Cluster c;
        c.name = n;
        c.region = n;
        c.intra_bandwidth_Bps = 400e9 / 8;
        c.intra_latency_s = 5e-6;
        for (int i = 0; i < nodes; ++i) {
            Node node;
            node.name = n + "n" + std::to_string(i + 1);
            node.gpu_type = "H100-SXM";
            node.gpus = 8;
            node.nvlink_domain_size = 8;
            c.nodes.push_back(node);
        }
        t.clusters.push_back(c);
    }
    for (size_t a = 0; a < names.size(); ++a)
        for (size_t b = a + 1; b < names.size(); ++b)
            t.links.push_back({static_cast<int>(a), static_cast<int>(b), gbps * 1e9 / 8, 0.010});
    t.finalize("test");
    return t;
}

inline SiteState site(const Topology& t) { return SiteState(std::make_shared<const Topology>(t)); }

inline TraceJob job(const std::string& id, double submit, int gpus, const std::string& home, double iterations,
                    const std::string& model = "llama3-8b") {
    TraceJob j;
    j.id = id;
    j.submit_s = submit;
    j.model = model;
    j.gpus_min = j.gpus_max = gpus;
    j.home = home;
    j.work_unit = WorkUnit::iterations;
    j.work = iterations;
    j.global_batch = 64;
    j.seq_len = 2048;
    return j;
}

// A Helios-shaped stream over the clusters of `t`.
inline JobTrace generated(const Topology& t, int jobs, uint64_t seed, double load, double gpu_scale) {
    HeliosGenOptions h;
    h.jobs = jobs;
    h.seed = seed;
    h.load = load;
    h.gpu_scale = gpu_scale;
    for (const auto& c : t.clusters) h.homes.push_back({c.name, c.total_gpus()});
    return generate_helios_like(h);
}

inline JobTrace trace_of(std::vector<TraceJob> jobs) {
    JobTrace t;
    t.source = "test trace";
    t.jobs = std::move(jobs);
    return t;
}

}  // namespace spiderflow::fedsim::fedtest
