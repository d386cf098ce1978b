// Parameter counts from the architecture. Biases and position embeddings are left out (well under
// 0.1% for the catalog's models); norms are counted so totals match the model cards.
#include "common/model/catalog.h"

namespace spiderflow {

const char* to_string(Normalization n) {
    switch (n) {
        case Normalization::layer_norm: return "LayerNorm";
        case Normalization::rms_norm: return "RMSNorm";
    }
    return "?";
}

const char* to_string(PositionEmbedding p) {
    switch (p) {
        case PositionEmbedding::learned_absolute: return "learned_absolute";
        case PositionEmbedding::rope: return "rope";
    }
    return "?";
}

const char* to_string(Activation a) {
    switch (a) {
        case Activation::gelu: return "gelu";
        case Activation::swiglu: return "swiglu";
        case Activation::squared_relu: return "squared_relu";
    }
    return "?";
}

double ModelArch::matmul_params_per_layer(bool active_only) const {
    const double h = hidden;
    const double kv_dim = static_cast<double>(kv_heads) * head_dim();
    const double attention = 2.0 * h * h + 2.0 * h * kv_dim;  // Q and O full width; K and V per KV head
    const double per_expert = (gated_ffn ? 3.0 : 2.0) * h * ffn_hidden;
    double ffn = per_expert;
    double router = 0;
    if (is_moe()) {
        const int used = active_only ? (experts_per_token > 0 ? experts_per_token : 1) : experts;
        ffn = per_expert * used;
        router = h * experts;
    }
    return attention + ffn + router;
}

double ModelArch::params_per_layer() const { return matmul_params_per_layer(false) + 2.0 * hidden; }

double ModelArch::active_params_per_layer() const { return matmul_params_per_layer(true) + 2.0 * hidden; }

double ModelArch::embedding_params() const {
    return static_cast<double>(vocab) * hidden * (tied_embeddings ? 1.0 : 2.0);
}

double ModelArch::stage_params(int layers, int stage, int pp) const {
    double p = layers * params_per_layer();
    const double table = static_cast<double>(vocab) * hidden;
    if (stage == 0) p += table;
    if (stage == pp - 1) {
        if (!(tied_embeddings && pp == 1)) p += table;
        p += hidden;  // final norm
    }
    return p;
}

double ModelArch::total_params() const {
    // + final norm
    return layers * params_per_layer() + embedding_params() + hidden;
}

}  // namespace spiderflow
