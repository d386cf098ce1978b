#include "common/planner/shapes.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "common/util/errors.h"
#include "common/util/units.h"

namespace spiderflow {
namespace {

std::string gib(double bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / units::kGiB);
    return buf;
}

bool tp_valid_for_model(const ModelArch& m, int tp) {
    if (tp < 1) return false;
    if (m.heads > 0 && m.heads % tp != 0) return false;
    if (m.kv_heads > 0 && m.kv_heads % tp != 0) return false;
    return true;
}

// The biggest-memory GPU type the clusters offer, and its name (for messages).
std::pair<double, std::string> largest_memory(const Topology& topology, const CostModel& cost,
                                              const std::vector<int>& clusters) {
    double best = 0;
    std::string name;
    for (int c : clusters)
        for (const Node& n : topology.clusters[static_cast<size_t>(c)].nodes) {
            const GpuType* g = cost.catalog().gpu(n.gpu_type);
            if (g && g->memory_bytes > best) {
                best = g->memory_bytes;
                name = g->name;
            }
        }
    return {best * cost.options().memory_headroom, name};
}

std::vector<int> micro_batch_choices(const PlanRequest& request, int per_replica_batch) {
    std::vector<int> out;
    const int fixed = request.micro_batch ? *request.micro_batch : request.job.micro_batch;
    if (fixed > 0) {
        if (per_replica_batch % fixed == 0) out.push_back(fixed);
        return out;
    }
    // Powers of two up to 16 cover what training stacks use; larger micro-batches only waste
    // memory without shortening the pipeline.
    for (int mb = 1; mb <= 16; mb *= 2)
        if (per_replica_batch % mb == 0) out.push_back(mb);
    return out;
}

}  // namespace

std::string to_string(const Shape& s) {
    return "tp" + std::to_string(s.tp) + " pp" + std::to_string(s.pp) + " dp" + std::to_string(s.dp) + " mb" +
           std::to_string(s.micro_batch);
}

std::vector<int> eligible_clusters(const PlanRequest& request, const Topology& topology) {
    // A named cluster's index; a name the topology lacks is the request's error, at its field.
    auto index = [&](const std::vector<std::string>& names, const char* field, size_t i) {
        const int c = topology.cluster_index(names[i]);
        if (c < 0)
            throw InputError("plan request", 0, std::string(field) + "[" + std::to_string(i) + "]",
                             "no cluster named '" + names[i] + "' in topology '" + topology.name + "'");
        return c;
    };
    std::set<int> allowed;
    if (request.allowed_clusters.empty()) {
        for (int i = 0; i < static_cast<int>(topology.clusters.size()); ++i) allowed.insert(i);
    }
    for (size_t i = 0; i < request.allowed_clusters.size(); ++i) {
        allowed.insert(index(request.allowed_clusters, "allowed_clusters", i));
    }
    for (size_t i = 0; i < request.forbidden_clusters.size(); ++i) {
        allowed.erase(index(request.forbidden_clusters, "forbidden_clusters", i));
    }
    return {allowed.begin(), allowed.end()};
}

int max_nvlink_domain(const Topology& topology, const std::vector<int>& clusters) {
    int best = 0;
    for (int c : clusters)
        for (const Node& n : topology.clusters[static_cast<size_t>(c)].nodes)
            best = std::max(best, n.nvlink_domain_gpus());
    return best;
}

int usable_gpus(const Topology& topology, const std::vector<int>& clusters, int tp) {
    int total = 0;
    for (int c : clusters)
        for (const Node& n : topology.clusters[static_cast<size_t>(c)].nodes)
            total += static_cast<int>(tp_group_first_gpus(n, tp).size()) * tp;
    return total;
}

double memory_lower_bound(const JobSpec& job, const Shape& shape) {
    const ModelArch& m = job.model;
    const int layers_in_fullest = (m.layers + shape.pp - 1) / std::max(1, shape.pp);
    // The first stage holds the input embedding, the last the output head; with pp == 1 both.
    const double embed = shape.pp == 1 ? m.embedding_params() : m.embedding_params() / 2.0;
    const double params = (layers_in_fullest * m.params_per_layer() + embed) / std::max(1, shape.tp);
    const int bpp = job.bytes_per_param();
    // Weights and gradients at training precision, Adam moments in fp32 (sharded by ZeRO-1).
    // The master copy and activations are left out on purpose: this must stay a lower bound
    // of whatever the cost model counts.
    const double optimizer = 8.0 / (job.zero1 ? std::max(1, shape.dp) : 1);
    return params * (2.0 * bpp + optimizer) * 0.9;
}

std::vector<Shape> enumerate_shapes(const PlanRequest& request, const Topology& topology, const CostModel& cost,
                                    int gpus, const std::vector<int>& clusters, std::vector<Shape>* memory_pruned) {
    std::vector<Shape> out;
    const JobSpec& job = request.job;
    const ModelArch& m = job.model;
    if (gpus < 1 || m.layers < 1 || job.global_batch < 1) return out;
    const int domain = max_nvlink_domain(topology, clusters);
    const double mem = largest_memory(topology, cost, clusters).first;
    for (int tp = 1; tp <= domain; ++tp) {
        if (gpus % tp != 0 || !tp_valid_for_model(m, tp)) continue;
        if (request.tp && *request.tp != tp) continue;
        if (usable_gpus(topology, clusters, tp) < gpus) continue;
        for (int pp = 1; pp <= m.layers; ++pp) {
            if ((gpus / tp) % pp != 0) continue;
            if (request.pp && *request.pp != pp) continue;
            const int dp = gpus / tp / pp;
            if (request.dp && *request.dp != dp) continue;
            if (job.global_batch % dp != 0) continue;
            for (int mb : micro_batch_choices(request, job.global_batch / dp)) {
                const Shape s{tp, pp, dp, mb};
                if (request.only_shapes &&
                    std::find(request.only_shapes->begin(), request.only_shapes->end(), s.key()) == request.only_shapes->end())
                    continue;
                if (memory_lower_bound(job, s) > mem) {
                    if (memory_pruned) memory_pruned->push_back(s);
                    continue;
                }
                out.push_back(s);
            }
        }
    }
    return out;
}

std::vector<Shape> enumerate_shapes(const PlanRequest& request, const Topology& topology, const CostModel& cost,
                                    int gpus) {
    return enumerate_shapes(request, topology, cost, gpus, eligible_clusters(request, topology));
}

std::vector<int> candidate_gpu_counts(const PlanRequest& request, int available_gpus) {
    const JobSpec& job = request.job;
    if (job.gpu_mode == GpuCountMode::exact) {
        if (job.gpus > available_gpus)
            throw InfeasibleError("asked for " + std::to_string(job.gpus) + " GPUs; the allowed clusters have " +
                                  std::to_string(available_gpus));
        return {job.gpus};
    }
    int limit = available_gpus;
    if (job.gpu_mode == GpuCountMode::at_most && job.gpus > 0) limit = std::min(limit, job.gpus);
    std::set<int, std::greater<int>> counts;
    if (limit >= 1) counts.insert(limit);
    for (long a = 1; a <= limit; a *= 2)
        for (long b = a; b <= limit; b *= 3) counts.insert(static_cast<int>(b));
    return {counts.begin(), counts.end()};
}

int choose_gpu_count(const PlanRequest& request, int available_gpus) {
    return candidate_gpu_counts(request, available_gpus).front();
}

void explain_no_shape(const PlanRequest& request, const Topology& topology, const CostModel& cost,
                      const std::vector<int>& clusters, const std::vector<int>& counts) {
    const JobSpec& job = request.job;
    const ModelArch& m = job.model;
    const auto [mem, gpu_name] = largest_memory(topology, cost, clusters);
    const int gpus = counts.empty() ? 0 : counts.front();
    const std::string on = std::to_string(gpus) + " GPUs" + (gpu_name.empty() ? "" : " of " + gpu_name);
    if (clusters.empty()) throw InfeasibleError("no cluster is left after allowed/forbidden clusters");
    if (gpus < 1) throw InfeasibleError("no GPUs available in the allowed clusters");
    if (request.tp && !tp_valid_for_model(m, *request.tp))
        throw InfeasibleError("tp=" + std::to_string(*request.tp) + " does not divide " + m.name + "'s " +
                              std::to_string(m.heads) + " attention heads / " + std::to_string(m.kv_heads) +
                              " kv heads");
    const int domain = max_nvlink_domain(topology, clusters);
    if (request.tp && *request.tp > domain)
        throw InfeasibleError("tp=" + std::to_string(*request.tp) + " exceeds the largest NVLink domain (" +
                              std::to_string(domain) + " GPUs); TP never leaves a node");

    // Memory: the most sharded layout ignoring batch divisibility.
    double least = std::numeric_limits<double>::infinity();
    Shape least_shape;
    for (int tp = 1; tp <= domain; ++tp) {
        if (!tp_valid_for_model(m, tp) || (request.tp && *request.tp != tp)) continue;
        const int pp = std::min(m.layers, std::max(1, gpus / tp));
        const Shape s{tp, request.pp ? *request.pp : pp, 1, 1};
        const double need = memory_lower_bound(job, s);
        if (need < least) {
            least = need;
            least_shape = s;
        }
    }
    if (mem <= 0) {
        throw InfeasibleError("the GPUs of the allowed clusters are of no type the catalog knows, so no memory or speed "
                              "can be rated: name the type (Gres=gpu:TYPE:N in slurm.conf, or gpu_type in the topology; "
                              "`spiderflow catalog gpus` lists them)");
    }
    if (least > mem) {
        // Scale: state is roughly inverse in tp*pp; how many GPUs would bring it under memory.
        const double per_gpu_total = least * least_shape.tp * least_shape.pp;
        const int need_gpus = static_cast<int>(std::ceil(per_gpu_total / std::max(1.0, mem)));
        throw InfeasibleError(m.name + " does not fit any layout on " + on + ": needs at least " + gib(least) +
                              " per GPU with the most sharded layout (" + to_string(least_shape) + "), the GPUs have " +
                              gib(mem) + " usable; it needs about " + std::to_string(need_gpus) +
                              " GPUs or more memory per GPU");
    }
    // A fixed micro-batch: every replica takes global_batch / dp samples in micro-batches of it,
    // so dp x micro-batch must divide the global batch. Named first when that is what fails.
    if (request.micro_batch && *request.micro_batch > 0) {
        const int mb = *request.micro_batch;
        if (request.dp && job.global_batch % (*request.dp * mb) != 0) {
            throw InfeasibleError("--micro-batch " + std::to_string(mb) + " with dp=" + std::to_string(*request.dp) +
                                  ": dp x micro-batch (" + std::to_string(*request.dp * mb) +
                                  ") must divide the global batch " + std::to_string(job.global_batch) +
                                  "; use a micro-batch dividing " + std::to_string(job.global_batch / *request.dp));
        }
        if (!request.dp && !request.tp && !request.pp) {
            bool any = false;
            for (int dp = 1; dp <= gpus && !any; ++dp) any = gpus % dp == 0 && job.global_batch % (dp * mb) == 0;
            if (!any) {
                throw InfeasibleError("--micro-batch " + std::to_string(mb) + ": no data-parallel degree of " +
                                      std::to_string(gpus) + " GPUs gives replicas a whole number of micro-batches "
                                      "of the global batch " + std::to_string(job.global_batch));
            }
        }
    }
    // Batch / degrees: find counts dividing the global batch.
    std::string what = "no (tp, pp, dp, micro-batch) layout of " + on + " fits " + m.name + " with global batch " +
                       std::to_string(job.global_batch);
    if (request.tp || request.pp || request.dp || request.micro_batch) what += " and the fixed degrees";
    what += ": dp must divide the global batch and tp*pp*dp must equal the GPU count";
    for (int g = gpus - 1; g >= 1; --g) {
        PlanRequest r = request;
        if (!enumerate_shapes(r, topology, cost, g, clusters).empty()) {
            what += "; " + std::to_string(g) + " GPUs would fit";
            break;
        }
        if (gpus - g > 4096) break;
    }
    throw InfeasibleError(what);
}

bool better_prediction(const Prediction& a, int gpus_a, const Prediction& b, int gpus_b, Objective objective) {
    if (!a.feasible) return false;
    if (!b.feasible) return true;
    if (objective == Objective::throughput_per_gpu) {
        const double ta = a.iteration_s * gpus_a;  // GPU-seconds per iteration, lower is better
        const double tb = b.iteration_s * gpus_b;
        if (ta != tb) return ta < tb;
        return gpus_a > gpus_b;
    }
    if (a.iteration_s != b.iteration_s) return a.iteration_s < b.iteration_s;
    return gpus_a < gpus_b;
}

}  // namespace spiderflow
