#include "common/coflow/llm_traffic.h"

#include <algorithm>

#include "common/cost/cost_parts.h"
#include "common/plan/plan_routes.h"
#include "common/plan/plan_traffic.h"
#include "common/util/errors.h"

namespace spiderflow::coflow {

StageTimes stage_times_from_flops(const Plan& p, double achieved_flops) {
    p.validate();  // structure only: no topology here, cells are read by cluster
    if (!(achieved_flops > 0)) throw InputError("plan", 0, "achieved_flops", "must be > 0");
    StageTimes t;
    for (int s = 0; s < p.pp; ++s) {
        const cost::MicroBatchCompute c = cost::micro_batch_compute(p, s, achieved_flops);
        t.forward_s.push_back(c.forward_s);
        t.backward_s.push_back(c.backward_s());
    }
    return t;
}

StageTimes stage_times_on(const Plan& p, const Topology& topo, const Catalog& catalog) {
    p.validate();
    StageTimes t{std::vector<double>(p.pp, 0), std::vector<double>(p.pp, 0)};
    for (int s = 0; s < p.pp; ++s)
        for (int r = 0; r < p.dp; ++r) {
            const StageCell& c = p.cell(s, r);
            const std::string& type = topo.clusters.at(c.cluster).nodes.at(c.node).gpu_type;
            const GpuType* g = catalog.gpu(type);
            if (g == nullptr) throw InputError("plan", 0, "cells", "unknown GPU type '" + type + "'");
            const StageTimes one = stage_times_from_flops(p, g->peak_flops * g->efficiency);
            t.forward_s[s] = std::max(t.forward_s[s], one.forward_s[s]);
            t.backward_s[s] = std::max(t.backward_s[s], one.backward_s[s]);
        }
    return t;
}

PeriodicJob build_llm_job(const Plan& p, const StageTimes& times, const LlmJobOptions& o, IterationTraffic* traffic) {
    p.validate();
    if (static_cast<int>(times.forward_s.size()) != p.pp || static_cast<int>(times.backward_s.size()) != p.pp)
        throw InputError("plan", 0, "stage_times", "need forward and backward times for every stage");
    const int P = p.pp, M = p.num_micro_batches;
    IterationTraffic sum;

    PeriodicJob job;
    job.name = o.name;
    job.arrival_s = o.arrival_s;
    job.iterations = o.iterations;
    job.micro_batches = M;
    auto add = [&](Task t) {
        job.tasks.push_back(std::move(t));
        return static_cast<int>(job.tasks.size()) - 1;
    };
    auto compute = [&](std::string label, double d, std::vector<int> deps) {
        Task t;
        t.type = Task::Type::compute;
        t.label = std::move(label);
        t.duration_s = d;
        t.deps = std::move(deps);
        return add(std::move(t));
    };
    auto coflow = [&](std::string label, CoflowKind kind, int mb, int layer, std::vector<FlowSpec> flows,
                      std::vector<int> deps) {
        Task t;
        t.type = Task::Type::coflow;
        t.label = std::move(label);
        t.kind = kind;
        t.micro_batch = mb;
        t.layer = layer;
        t.flows = std::move(flows);
        t.deps = std::move(deps);
        return add(std::move(t));
    };
    auto tag = [](const char* what, int m, int s) { return std::string(what) + " m" + std::to_string(m) + " s" + std::to_string(s); };

    // One definition of what crosses clusters (plan_traffic.h); here only turned into coflows.
    // Each flow on the route the cost model prices for its kind (plan_routes.h), given a topology.
    auto to_specs = [&](const std::vector<ClusterFlow>& flows, double& total, bool pipeline) {
        std::vector<FlowSpec> out;
        out.reserve(flows.size());
        for (const ClusterFlow& f : flows) {
            bool fast = false;
            if (o.topology != nullptr) {
                const RouteKind kind = pipeline ? pp_route(*o.topology, p, f.src, f.dst)
                                                : dp_route_between(*o.topology, p, f.src, f.dst);
                fast = kind == RouteKind::fastest;
            }
            out.push_back({f.src, f.dst, f.bytes, fast});
            total += f.bytes;
        }
        return out;
    };
    auto pp_flows = [&](int boundary, bool forward) {
        return to_specs(pp_boundary_flows(p, boundary, forward), sum.pp_bytes, true);
    };

    std::vector<std::vector<int>> F(M, std::vector<int>(P)), act_in(M, std::vector<int>(P, -1));
    std::vector<std::vector<int>> B(M, std::vector<int>(P)), grad_in(M, std::vector<int>(P, -1));
    for (int m = 0; m < M; ++m)
        for (int s = 0; s < P; ++s) {
            std::vector<int> deps;
            if (m > 0) deps.push_back(F[m - 1][s]);
            if (s > 0) deps.push_back(act_in[m][s]);
            F[m][s] = compute(tag("F", m, s), times.forward_s[s], deps);
            if (s + 1 < P) {
                act_in[m][s + 1] = coflow(tag("PPact", m, s), CoflowKind::pp, m, p.first_layer_of_stage(s + 1),
                                          pp_flows(s, true), {F[m][s]});
                // One channel per peer pair: micro-batch m's activations follow m-1's last byte.
                if (m > 0) job.tasks[act_in[m][s + 1]].sent_deps.push_back(act_in[m - 1][s + 1]);
            }
        }
    for (int m = 0; m < M; ++m)
        for (int s = P - 1; s >= 0; --s) {
            std::vector<int> deps{m > 0 ? B[m - 1][s] : F[M - 1][s]};
            deps.push_back(s + 1 < P ? grad_in[m][s] : F[m][s]);
            std::sort(deps.begin(), deps.end());
            deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
            B[m][s] = compute(tag("B", m, s), times.backward_s[s], deps);
            if (s > 0) {
                grad_in[m][s - 1] = coflow(tag("PPgrad", m, s), CoflowKind::pp, m, p.first_layer_of_stage(s),
                                           pp_flows(s - 1, false), {B[m][s]});
                if (m > 0) job.tasks[grad_in[m][s - 1]].sent_deps.push_back(grad_in[m - 1][s - 1]);
            }
        }
    for (int s = 0; s < P; ++s) {
        std::vector<FlowSpec> flows = to_specs(dp_allreduce_flows(p, s), sum.dp_bytes, false);
        const int dp = coflow("DP s" + std::to_string(s), CoflowKind::dp, M - 1, p.first_layer_of_stage(s), flows,
                              {B[M - 1][s]});
        job.tasks[F[0][s]].prev_deps.push_back(dp);   // the next iteration starts with updated weights
    }
    finalize_job(job);
    if (traffic) *traffic = sum;
    return job;
}

}  // namespace spiderflow::coflow
