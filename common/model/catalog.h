// GPU types and model architectures. The figures live in data files (common/model/catalog/*.json,
// each entry citing its source), embedded at build time so plugins never miss them; a site may
// load its own file on top.
#pragma once

#include <compare>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace spiderflow {

struct GpuType {
    std::string name;            // "A100-80GB"
    double peak_flops = 0;       // dense bf16/fp16 tensor FLOP/s
    double memory_bytes = 0;
    double nvlink_Bps = 0;       // per GPU, one direction; 0 = PCIe only
    double pcie_Bps = 0;         // host link, one direction
    double hbm_Bps = 0;          // device memory bandwidth; 0 = unknown (cost model assumes 1 TB/s)
    double efficiency = 0.5;     // achievable fraction of peak for large training GEMMs
    std::string source;
};

// How a model's layers are built beyond their dimensions: what a training framework must be told
// and the cost model does not count (norms, biases and position encodings are well under 0.1%
// of FLOPs and memory). Values are Megatron-LM's; the defaults are its defaults.
enum class Normalization { layer_norm, rms_norm };
enum class PositionEmbedding { learned_absolute, rope };
enum class Activation { gelu, swiglu, squared_relu };

struct LayerDetails {
    Normalization normalization = Normalization::layer_norm;
    PositionEmbedding position_embedding = PositionEmbedding::learned_absolute;
    int rotary_base = 10000;     // RoPE base frequency (theta); meaningful with rope only
    bool bias_linear = true;     // biases in the linear layers (QKV, projections, FFN)
    Activation activation = Activation::gelu;  // swiglu exactly when gated_ffn

    auto operator<=>(const LayerDetails&) const = default;
};

// Catalog spellings: "LayerNorm"/"RMSNorm", "learned_absolute"/"rope", "gelu"/"swiglu"/"squared_relu".
const char* to_string(Normalization n);
const char* to_string(PositionEmbedding p);
const char* to_string(Activation a);

struct ModelArch {
    std::string name;            // "llama3-70b"
    int layers = 0;
    int hidden = 0;
    int heads = 0;
    int kv_heads = 0;            // == heads without GQA
    int ffn_hidden = 0;          // per expert for MoE
    int vocab = 0;
    int experts = 0;             // 0 or 1 = dense
    int experts_per_token = 0;   // top-k routing
    bool gated_ffn = false;      // SwiGLU: three FFN matrices instead of two
    bool tied_embeddings = false;
    // Catalog entries and job specs' own models always have it (the reader fills the defaults
    // for what an entry does not say); a model read back from a plan file does not.
    std::optional<LayerDetails> details;
    std::string source;

    bool is_moe() const { return experts > 1; }
    int head_dim() const { return heads > 0 ? hidden / heads : 0; }
    // Weights that take part in one token's matrix multiplies in one layer (no norms):
    // what forward FLOPs are 2x of.
    double matmul_params_per_layer(bool active_only) const;
    double params_per_layer() const;     // all experts counted
    double active_params_per_layer() const;  // experts_per_token experts counted
    double embedding_params() const;     // input embedding (+ output head unless tied)
    // Parameters of pipeline stage `stage` of `pp` holding `layers` layers, all TP ranks together:
    // the layers, the input embedding on the first stage, the output head and final norm on the
    // last. A tied head is the embedding itself only with pp = 1; with several stages Megatron
    // keeps a copy of it on the last.
    double stage_params(int layers, int stage, int pp) const;
    double total_params() const;

    // A job spec holding the model is part of a request's cache key (request_options.h).
    auto operator<=>(const ModelArch&) const = default;
};

class Catalog {
public:
    // The catalog built into the binary.
    static const Catalog& builtin();
    // Builtin plus the entries of a JSON catalog file (same schema); later entries replace
    // earlier ones with the same name. Throws InputError.
    static Catalog with_file(const std::string& path);

    void add_json(const std::string& text, const std::string& source);

    const GpuType* gpu(const std::string& name) const;     // nullptr when absent; case-insensitive
    const ModelArch* model(const std::string& name) const;  // nullptr when absent; case-insensitive
    std::vector<std::string> gpu_names() const;
    std::vector<std::string> model_names() const;

private:
    std::map<std::string, GpuType> gpus_;      // key: lower-case name
    std::map<std::string, ModelArch> models_;
};

}  // namespace spiderflow
