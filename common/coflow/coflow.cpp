#include "common/coflow/coflow.h"

#include <algorithm>

#include "common/util/errors.h"

namespace spiderflow::coflow {

const char* to_string(CoflowKind k) {
    switch (k) {
        case CoflowKind::generic: return "coflow";
        case CoflowKind::pp: return "PP";
        case CoflowKind::ep: return "EP";
        case CoflowKind::dp: return "DP";
    }
    return "coflow";
}

void finalize_job(PeriodicJob& job) {
    const std::string src = "job " + job.name;
    const int n = static_cast<int>(job.tasks.size());
    if (n == 0) throw InputError(src, 0, "tasks", "a job needs at least one task");
    if (job.iterations < 1) throw InputError(src, 0, "iterations", "must be >= 1");
    if (job.micro_batches < 1) throw InputError(src, 0, "micro_batches", "must be >= 1");
    std::vector<int> indeg(n, 0);
    std::vector<std::vector<int>> succ(n);
    for (int t = 0; t < n; ++t) {
        const Task& task = job.tasks[t];
        const std::string field = "tasks[" + std::to_string(t) + "]";
        for (int d : task.deps) {
            if (d < 0 || d >= n || d == t) throw InputError(src, 0, field + ".deps", "bad task reference");
            succ[d].push_back(t);
            ++indeg[t];
        }
        for (int d : task.prev_deps)
            if (d < 0 || d >= n) throw InputError(src, 0, field + ".prev_deps", "bad task reference");
        for (int d : task.sent_deps) {
            if (d < 0 || d >= n || d == t || job.tasks[d].type != Task::Type::coflow)
                throw InputError(src, 0, field + ".sent_deps", "must name another coflow task");
            succ[d].push_back(t);
            ++indeg[t];
        }
        if (job.iterations > 1 && task.deps.empty() && task.prev_deps.empty())
            throw InputError(src, 0, field, "a first task must depend on the previous iteration");
        if (task.type == Task::Type::compute && task.duration_s < 0)
            throw InputError(src, 0, field + ".duration_s", "must be >= 0");
        for (const auto& f : task.flows)
            if (!(f.bytes >= 0)) throw InputError(src, 0, field + ".flows", "bytes must be >= 0");
    }
    // Topological order; a cycle would deadlock the job.
    std::vector<int> order;
    for (int t = 0; t < n; ++t)
        if (indeg[t] == 0) order.push_back(t);
    for (size_t i = 0; i < order.size(); ++i)
        for (int s : succ[order[i]])
            if (--indeg[s] == 0) order.push_back(s);
    if (static_cast<int>(order.size()) != n) throw InputError(src, 0, "tasks", "dependencies form a cycle");
    // Compute-only critical path: the iteration time if the network were infinitely fast.
    std::vector<double> finish(n, 0);
    double bytes = 0, longest = 0;
    for (int t : order) {
        const Task& task = job.tasks[t];
        double start = 0;
        for (int d : task.deps) start = std::max(start, finish[d]);
        for (int d : task.sent_deps) start = std::max(start, finish[d]);
        finish[t] = start + (task.type == Task::Type::compute ? task.duration_s : 0);
        longest = std::max(longest, finish[t]);
        for (const auto& f : task.flows) bytes += f.bytes;
    }
    job.wan_bytes_per_iteration = bytes;
    job.compute_s_per_iteration = longest;
}

}  // namespace spiderflow::coflow
