#include "common/coflow/llm_traffic.h"

#include <algorithm>
#include <map>
#include <set>

#include "common/util/errors.h"

namespace spiderflow::coflow {

namespace {

void check_plan(const Plan& p) {
    const std::string src = "plan";
    if (p.pp < 1 || p.dp < 1 || p.tp < 1) throw InputError(src, 0, "pp/dp/tp", "parallel degrees must be >= 1");
    if (static_cast<int>(p.cells.size()) != p.pp * p.dp)
        throw InputError(src, 0, "cells", "expected pp*dp = " + std::to_string(p.pp * p.dp) + " cells, got " +
                                              std::to_string(p.cells.size()));
    if (static_cast<int>(p.layers_per_stage.size()) != p.pp)
        throw InputError(src, 0, "layers_per_stage", "expected one entry per pipeline stage");
    if (p.num_micro_batches < 1) throw InputError(src, 0, "num_micro_batches", "must be >= 1");
    for (size_t i = 0; i < p.cells.size(); ++i)
        if (p.cells[i].cluster < 0) throw InputError(src, 0, "cells[" + std::to_string(i) + "].cluster", "unset");
}

double expert_params_per_layer(const ModelArch& m) {
    if (!m.is_moe()) return 0;
    return static_cast<double>(m.experts) * (m.gated_ffn ? 3.0 : 2.0) * m.hidden * m.ffn_hidden;
}

int micro_batch_size(const Plan& p) { return std::max(1, p.micro_batch); }

}  // namespace

double activation_bytes(const Plan& p) {
    return static_cast<double>(micro_batch_size(p)) * p.job.seq_len * p.job.model.hidden * p.job.bytes_per_param();
}

double stage_gradient_bytes(const Plan& p, int stage) {
    const ModelArch& m = p.job.model;
    // Experts are sharded over the data-parallel group (expert parallelism = dp), so each expert
    // has one copy and its gradients need no all-reduce.
    double params = (m.params_per_layer() - expert_params_per_layer(m)) * p.layers_per_stage[stage];
    if (stage == 0) params += static_cast<double>(m.vocab) * m.hidden;                         // input embedding
    if (stage == p.pp - 1 && !m.tied_embeddings) params += static_cast<double>(m.vocab) * m.hidden;  // output head
    return params * p.job.bytes_per_param();
}

StageTimes stage_times_from_flops(const Plan& p, double achieved_flops) {
    check_plan(p);
    if (!(achieved_flops > 0)) throw InputError("plan", 0, "achieved_flops", "must be > 0");
    StageTimes t;
    const double tokens = static_cast<double>(micro_batch_size(p)) * p.job.seq_len;
    for (int s = 0; s < p.pp; ++s) {
        const double flops = 2.0 * p.job.model.active_params_per_layer() * p.layers_per_stage[s] * tokens;
        const double fwd = flops / (p.tp * achieved_flops);
        t.forward_s.push_back(fwd);
        t.backward_s.push_back(2 * fwd);
    }
    return t;
}

PeriodicJob build_llm_job(const Plan& p, const StageTimes& times, const LlmJobOptions& o, IterationTraffic* traffic) {
    check_plan(p);
    if (static_cast<int>(times.forward_s.size()) != p.pp || static_cast<int>(times.backward_s.size()) != p.pp)
        throw InputError("plan", 0, "stage_times", "need forward and backward times for every stage");
    const int P = p.pp, D = p.dp, M = p.num_micro_batches;
    const double act = activation_bytes(p);
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

    // Flows of one stage boundary (s -> s+1 if forward) for one micro-batch.
    auto pp_flows = [&](int s, bool forward) {
        std::vector<FlowSpec> flows;
        for (int r = 0; r < D; ++r) {
            const int a = p.cell(s, r).cluster, b = p.cell(forward ? s + 1 : s - 1, r).cluster;
            if (a != b) flows.push_back({a, b, act});
        }
        for (const auto& f : flows) sum.pp_bytes += f.bytes;
        return flows;
    };
    // MoE all-to-all of stage s for one micro-batch, one direction of compute (dispatch + combine).
    const bool moe = p.job.model.is_moe();
    auto ep_flows = [&](int s) {
        std::vector<FlowSpec> flows;
        if (!moe) return flows;
        std::map<int, int> per_cluster;
        for (int r = 0; r < D; ++r) ++per_cluster[p.cell(s, r).cluster];
        const double tokens = static_cast<double>(micro_batch_size(p)) * p.job.seq_len;
        const double per_replica = tokens * std::max(1, p.job.model.experts_per_token) * p.job.model.hidden *
                                   p.job.bytes_per_param() * p.layers_per_stage[s];
        for (const auto& [a, na] : per_cluster)
            for (const auto& [b, nb] : per_cluster) {
                if (a == b) continue;
                // a's tokens dispatched to b's experts, plus b's tokens combined back to a.
                const double bytes = 2.0 * na * per_replica * nb / D;
                flows.push_back({a, b, bytes});
                sum.ep_bytes += bytes;
            }
        return flows;
    };

    std::vector<std::vector<int>> F(M, std::vector<int>(P)), Fout(M, std::vector<int>(P)), act_in(M, std::vector<int>(P, -1));
    std::vector<std::vector<int>> B(M, std::vector<int>(P)), Bout(M, std::vector<int>(P)), grad_in(M, std::vector<int>(P, -1));
    for (int m = 0; m < M; ++m)
        for (int s = 0; s < P; ++s) {
            std::vector<int> deps;
            if (m > 0) deps.push_back(F[m - 1][s]);
            if (s > 0) deps.push_back(act_in[m][s]);
            F[m][s] = compute(tag("F", m, s), times.forward_s[s], deps);
            Fout[m][s] = moe ? coflow(tag("EPf", m, s), CoflowKind::ep, m, p.first_layer_of_stage(s), ep_flows(s), {F[m][s]})
                             : F[m][s];
            if (s + 1 < P)
                act_in[m][s + 1] = coflow(tag("PPact", m, s), CoflowKind::pp, m, p.first_layer_of_stage(s + 1),
                                          pp_flows(s, true), {Fout[m][s]});
        }
    for (int m = 0; m < M; ++m)
        for (int s = P - 1; s >= 0; --s) {
            std::vector<int> deps{m > 0 ? B[m - 1][s] : Fout[M - 1][s]};
            deps.push_back(s + 1 < P ? grad_in[m][s] : Fout[m][s]);
            std::sort(deps.begin(), deps.end());
            deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
            B[m][s] = compute(tag("B", m, s), times.backward_s[s], deps);
            Bout[m][s] = moe ? coflow(tag("EPb", m, s), CoflowKind::ep, m, p.first_layer_of_stage(s), ep_flows(s), {B[m][s]})
                             : B[m][s];
            if (s > 0)
                grad_in[m][s - 1] = coflow(tag("PPgrad", m, s), CoflowKind::pp, m, p.first_layer_of_stage(s),
                                           pp_flows(s, false), {Bout[m][s]});
        }
    for (int s = 0; s < P; ++s) {
        std::set<int> clusters;
        for (int r = 0; r < D; ++r) clusters.insert(p.cell(s, r).cluster);
        const std::vector<int> ring(clusters.begin(), clusters.end());
        const int k = static_cast<int>(ring.size());
        std::vector<FlowSpec> flows;
        if (k > 1) {
            const double bytes = 2.0 * (k - 1) / k * stage_gradient_bytes(p, s);
            for (int i = 0; i < k; ++i) {
                flows.push_back({ring[i], ring[(i + 1) % k], bytes});
                sum.dp_bytes += bytes;
            }
        }
        const int dp = coflow("DP s" + std::to_string(s), CoflowKind::dp, M - 1, p.first_layer_of_stage(s), flows,
                              {Bout[M - 1][s]});
        job.tasks[F[0][s]].prev_deps.push_back(dp);   // the next iteration starts with updated weights
    }
    finalize_job(job);
    if (traffic) *traffic = sum;
    return job;
}

}  // namespace spiderflow::coflow
