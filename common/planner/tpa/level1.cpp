#include "common/planner/tpa/level1.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>

#include "common/cost/memory.h"

namespace spiderflow::tpa {

double MemoryModel::stage_bytes(int stage, int layers) const {
    // 1F1B keeps up to (pp - stage) micro-batches of activations alive on stage `stage`.
    const int in_flight = std::min(micro_batches, pp - stage);
    double bytes = layers * (per_layer_static + in_flight * per_layer_activation);
    if (stage == 0) bytes += embedding;
    if (stage == pp - 1) bytes += (pp == 1 && tied_single_stage ? 0 : embedding) + logits;
    return bytes;
}

int MemoryModel::max_layers(int stage, double memory) const {
    const double fixed = stage_bytes(stage, 0);
    const double per = stage_bytes(stage, 1) - fixed;
    if (memory < fixed + per) return 0;
    return per > 0 ? static_cast<int>((memory - fixed) / per) : 1 << 20;
}

MemoryModel memory_model(const JobSpec& job, const Shape& shape) {
    const ModelArch& m = job.model;
    MemoryModel mm;
    mm.pp = shape.pp;
    mm.micro_batches = std::max(1, job.global_batch / std::max(1, shape.dp * shape.micro_batch));
    const int bpp = job.bytes_per_param();
    // Weights + gradients at bpp; Adam: fp32 master + two moments (12 B), 8 B when training in fp32.
    const double optimizer = (bpp == 4 ? 8.0 : 12.0) / (job.zero1 ? shape.dp : 1);
    const double per_param = 2.0 * bpp + optimizer;
    mm.per_layer_static = m.params_per_layer() / shape.tp * per_param;
    mm.embedding = static_cast<double>(m.vocab) * m.hidden / shape.tp * per_param;
    mm.tied_single_stage = m.tied_embeddings;
    mm.logits = 4.0 * job.seq_len * shape.micro_batch * static_cast<double>(m.vocab) / shape.tp;
    mm.per_layer_activation = cost::layer_activation_bytes(job, shape.micro_batch, shape.tp);
    return mm;
}

std::vector<double> end_stage_work(const ModelArch& model, int pp) {
    std::vector<double> extra(static_cast<size_t>(std::max(pp, 0)), 0.0);
    const double layer = model.active_params_per_layer();
    if (!extra.empty() && layer > 0) extra.back() = static_cast<double>(model.hidden) * model.vocab / layer;
    return extra;
}

namespace {

// split_layers for the two end stages, without its heap and vectors: megatron_split asks it once per
// middle count, and at 64 sites that made split_layers a quarter of spinsearch's time. The greedy
// takes each stage's next-layer times, increasing in the layer, in merged order, ties to the first
// stage; so the split is where the two sorted lists' merge has total - 2 items, found by
// bisection. The same split as the heap's (a unit test compares them). False where split_layers
// would answer empty.
bool split_ends(int total, double speed0, double speed1, int cap0, int cap1, double extra0, double extra1, int& first,
                int& last) {
    if (total < 2 || cap0 < 1 || cap1 < 1 || speed0 <= 0 || speed1 <= 0 || static_cast<long>(cap0) + cap1 < total) return false;
    // Item x of each list is its stage's layer x + 2, priced as split_layers prices it.
    const auto item0 = [&](long x) { return (static_cast<int>(x) + 2 + extra0) / speed0; };
    const auto item1 = [&](long x) { return (static_cast<int>(x) + 2 + extra1) / speed1; };
    const long wanted = total - 2, len1 = cap1 - 1;
    long lo = std::max(0L, wanted - len1), hi = std::min<long>(wanted, cap0 - 1);
    while (lo < hi) {   // the fewest items of the first list such that its next comes after the second's last taken
        const long i = (lo + hi) / 2, j = wanted - i;
        if (j > 0 && item0(i) <= item1(j - 1)) lo = i + 1;
        else hi = i;
    }
    first = 1 + static_cast<int>(lo);
    last = 1 + static_cast<int>(wanted - lo);
    return true;
}

}  // namespace

std::vector<int> split_layers(int total, const std::vector<double>& speed, const std::vector<int>& cap,
                              const std::vector<double>& extra_in) {
    const size_t n = speed.size();
    if (n == 0 || total < static_cast<int>(n) || cap.size() != n) return {};
    const std::vector<double> extra = extra_in.size() == n ? extra_in : std::vector<double>(n, 0.0);
    long cap_sum = 0;
    for (size_t s = 0; s < n; ++s) {
        if (cap[s] < 1 || speed[s] <= 0) return {};
        cap_sum += cap[s];
    }
    if (cap_sum < total) return {};
    std::vector<int> layers(n, 1);
    // Next layer goes where it raises the stage's time least; ties to the lower stage index so
    // the split is deterministic.
    using Item = std::pair<double, size_t>;
    auto cmp = [](const Item& a, const Item& b) { return a.first != b.first ? a.first > b.first : a.second > b.second; };
    std::priority_queue<Item, std::vector<Item>, decltype(cmp)> heap(cmp);
    for (size_t s = 0; s < n; ++s)
        if (layers[s] < cap[s]) heap.push({(layers[s] + 1 + extra[s]) / speed[s], s});
    for (int left = total - static_cast<int>(n); left > 0; --left) {
        const size_t s = heap.top().second;
        heap.pop();
        ++layers[s];
        if (layers[s] < cap[s]) heap.push({(layers[s] + 1 + extra[s]) / speed[s], s});
    }
    return layers;
}

std::vector<int> megatron_split(int total, const std::vector<double>& speed, const std::vector<int>& cap,
                                const std::vector<double>& extra_in) {
    const size_t n = speed.size();
    if (n <= 2) return split_layers(total, speed, cap, extra_in);  // two stages: any split is expressible
    if (total < static_cast<int>(n) || cap.size() != n) return {};
    const std::vector<double> extra = extra_in.size() == n ? extra_in : std::vector<double>(n, 0.0);
    double mid_speed = std::numeric_limits<double>::infinity();
    int mid_cap = total;
    for (size_t s = 0; s < n; ++s) {
        if (cap[s] < 1 || speed[s] <= 0) return {};
        if (s == 0 || s + 1 == n) continue;
        mid_speed = std::min(mid_speed, speed[s]);
        mid_cap = std::min(mid_cap, cap[s]);
    }
    const int middles = static_cast<int>(n) - 2;
    std::vector<int> best;
    double best_time = std::numeric_limits<double>::infinity();
    // Largest middle count first: on ties the ends, which also carry embedding and logits, get less.
    for (int m = std::min(mid_cap, (total - 2) / middles); m >= 1; --m) {
        int first = 0, last = 0;
        if (!split_ends(total - middles * m, speed.front(), speed.back(), cap.front(), cap.back(), extra.front(),
                        extra.back(), first, last))
            continue;
        const double time = std::max(
            {m / mid_speed, (first + extra.front()) / speed.front(), (last + extra.back()) / speed.back()});
        if (time >= best_time) continue;
        best_time = time;
        best.assign(n, m);
        best.front() = first;
        best.back() = last;
    }
    return best;
}

std::string split_failure(int total, const std::vector<double>& speed, const std::vector<int>& cap) {
    const std::vector<int> free = split_layers(total, speed, cap);
    if (free.empty()) return "layers do not fit the stages' memory";
    std::string split;
    for (int n : free) split += (split.empty() ? "" : ",") + std::to_string(n);
    return "only splits with unequal middle stages (such as " + split +
           ") fit the stages' memory, and Megatron-LM cannot launch those; recomputing activations "
           "(\"recompute\": true) frees most of it";
}

std::vector<std::vector<int>> split_moves(const std::vector<int>& layers) {
    std::vector<std::vector<int>> out;
    const int n = static_cast<int>(layers.size());
    if (n < 2) return out;
    const int first = layers.front(), last = layers.back();
    auto add = [&](int f, int m, int l) {
        if (f < 1 || m < 1 || l < 1) return;
        std::vector<int> v(layers.size(), m);
        v.front() = f;
        v.back() = l;
        if (v != layers) out.push_back(std::move(v));
    };
    const int mid = n > 2 ? layers[1] : 1;
    add(first - 1, mid, last + 1);
    add(first + 1, mid, last - 1);
    if (n == 2) return out;
    const int middles = n - 2;
    for (int dm : {-1, 1}) {
        const int ends = first + last - dm * middles;
        const int f = static_cast<int>(std::lround(static_cast<double>(ends) * first / (first + last)));
        for (int df : {-1, 0, 1}) add(f + df, mid + dm, ends - f - df);
    }
    return out;
}

}  // namespace spiderflow::tpa
