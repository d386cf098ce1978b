// Small networks and workloads whose completion times can be worked out by hand.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "common/coflow/coflow.h"
#include "common/coflow/network.h"
#include "common/coflow/simulator.h"
#include "common/coflow/trace.h"
#include "common/topology/topology.h"

namespace sfc = spiderflow::coflow;

// Nodes 0..n-1 in a chain of duplex links of `cap` bytes/s; routes along the chain.
// Clusters by name (no nodes: the network and the routes need none) joined by `links`, finalized.
inline spiderflow::Topology clusters_and_links(const std::string& name, const std::vector<std::string>& clusters,
                                               const std::vector<spiderflow::Link>& links) {
    spiderflow::Topology t;
    t.name = name;
    for (const std::string& n : clusters) {
        spiderflow::Cluster c;
        c.name = n;
        t.clusters.push_back(c);
    }
    t.links = links;
    t.finalize(name);
    return t;
}

inline sfc::Network line_network(int nodes, double cap, double latency = 0) {
    sfc::Network net;
    for (int i = 0; i < nodes; ++i) net.add_node("n" + std::to_string(i));
    for (int i = 0; i + 1 < nodes; ++i) net.add_duplex(i, i + 1, cap, latency);
    net.route_widest();
    return net;
}

inline sfc::TraceCoflow trace_coflow(int id, double arrival_s, std::vector<sfc::FlowSpec> flows) {
    sfc::TraceCoflow c;
    c.id = id;
    c.arrival_s = arrival_s;
    c.flows = std::move(flows);
    return c;
}

// A generated trace (trace-gen) as a workload, on a big switch of 1 Gbps ports.
struct GeneratedRun {
    sfc::Workload workload;
    sfc::Network network;
    size_t coflows = 0;
};
// The port rate of generated_run()'s big switch (1 Gb/s).
constexpr double kGeneratedPortBps = 125e6;

inline GeneratedRun generated_run(int ports, int coflows, uint64_t seed, double interarrival_ms) {
    sfc::TraceGenOptions g;
    g.ports = ports;
    g.coflows = coflows;
    g.seed = seed;
    g.mean_interarrival_ms = interarrival_ms;
    std::istringstream in(sfc::generate_trace(g));
    const sfc::Trace trace = sfc::parse_trace(in, "generated");
    GeneratedRun run{{}, sfc::Network::big_switch(trace.ports, kGeneratedPortBps), trace.coflows.size()};
    run.workload.coflows = trace.coflows;
    return run;
}

// Completion time (finish - release) of the trace coflow with this id; -1 when absent.
inline double cct_of(const sfc::SimResult& r, int id) {
    for (const auto& c : r.coflows)
        if (c.job < 0 && c.id == id) return c.cct_s();
    return -1;
}

inline sfc::Task compute_task(double seconds, std::vector<int> deps, std::vector<int> prev = {}) {
    sfc::Task t;
    t.type = sfc::Task::Type::compute;
    t.duration_s = seconds;
    t.deps = std::move(deps);
    t.prev_deps = std::move(prev);
    return t;
}

inline sfc::Task coflow_task(sfc::CoflowKind kind, int micro_batch, int layer, std::vector<sfc::FlowSpec> flows,
                             std::vector<int> deps, std::vector<int> prev = {}) {
    sfc::Task t;
    t.type = sfc::Task::Type::coflow;
    t.kind = kind;
    t.micro_batch = micro_batch;
    t.layer = layer;
    t.flows = std::move(flows);
    t.deps = std::move(deps);
    t.prev_deps = std::move(prev);
    return t;
}

// A job whose iteration is: compute `compute_s`, then one coflow of `bytes` from src to dst.
inline sfc::PeriodicJob compute_then_send(const std::string& name, int iterations, double compute_s, int src, int dst,
                                          double bytes) {
    sfc::PeriodicJob j;
    j.name = name;
    j.iterations = iterations;
    j.tasks.push_back(compute_task(compute_s, {}, {1}));
    j.tasks.push_back(coflow_task(sfc::CoflowKind::dp, 0, 0, {{src, dst, bytes}}, {0}));
    sfc::finalize_job(j);
    return j;
}
