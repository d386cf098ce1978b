// Catalog reading: the builtin files compiled in (catalog_data.cpp), plus a site's own file.
#include <cctype>
#include <cerrno>
#include <cstddef>
#include <cstring>

#include "common/model/catalog.h"
#include "common/model/catalog_data.h"
#include "common/model/model_json.h"
#include "common/util/errors.h"
#include "common/util/json_read.h"
#include "common/util/text_file.h"
#include "common/util/units.h"

namespace spiderflow {

namespace jr = jsonread;

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

namespace {

using jsonread::Object;

std::string read_name(const Object& j) {
    std::string name = j.string("name");
    if (name.empty() || name.size() > 128) j.fail_at("name", "must be 1-128 characters");
    for (char c : name) {
        if (std::isspace(static_cast<unsigned char>(c)) || !std::isprint(static_cast<unsigned char>(c))) {
            j.fail_at("name", "must not contain spaces or control characters");
        }
    }
    return name;
}

// One of an enum's catalog spellings (exact, as Megatron-LM's options take them).
template <typename E, size_t N>
E choice(const Object& j, const char* k, const E (&values)[N]) {
    const std::string v = j.string(k);
    std::string known;
    for (E e : values) {
        if (v == to_string(e)) return e;
        known += std::string(known.empty() ? "" : ", ") + to_string(e);
    }
    j.fail_at(k, "unknown value '" + v + "' (" + known + ")");
}

// The layer details, defaults filled; may set gated_ffn from "activation" when the entry
// gives only that.
LayerDetails read_details(const Object& j, ModelArch& m) {
    LayerDetails d;
    if (j.has("normalization"))
        d.normalization = choice(j, "normalization", {Normalization::layer_norm, Normalization::rms_norm});
    if (j.has("position_embedding"))
        d.position_embedding =
            choice(j, "position_embedding", {PositionEmbedding::learned_absolute, PositionEmbedding::rope});
    if (j.has("rotary_base")) {
        if (d.position_embedding != PositionEmbedding::rope)
            j.fail_at("rotary_base", "set without position_embedding \"rope\"");
        d.rotary_base = j.integer("rotary_base", 1, 1000000000);
    }
    d.bias_linear = j.boolean_or("bias_linear", d.bias_linear);
    if (!j.has("activation")) {
        d.activation = m.gated_ffn ? Activation::swiglu : Activation::gelu;
        return d;
    }
    d.activation = choice(j, "activation", {Activation::gelu, Activation::swiglu, Activation::squared_relu});
    const bool gated = d.activation == Activation::swiglu;
    if (!j.has("gated_ffn")) {
        m.gated_ffn = gated;
    } else if (m.gated_ffn != gated) {
        j.fail_at("activation", std::string(to_string(d.activation)) +
                                    (gated ? " is a gated FFN but gated_ffn is false" : " is a plain FFN but gated_ffn is true"));
    }
    return d;
}

}  // namespace

ModelArch model_arch_from_json(const nlohmann::json& value, const std::string& source, const std::string& path,
                               bool require_name) {
    const Object j(value, source, path,
                   {"name", "layers", "hidden", "heads", "kv_heads", "ffn_hidden", "vocab", "experts",
                    "experts_per_token", "gated_ffn", "tied_embeddings", "normalization", "position_embedding",
                    "rotary_base", "bias_linear", "activation", "source"});
    ModelArch m;
    if (require_name || j.has("name")) m.name = lower(read_name(j));
    m.layers = j.integer("layers", 1, 10000);
    m.hidden = j.integer("hidden", 1, 1 << 20);
    m.heads = j.integer("heads", 1, 1 << 16);
    m.kv_heads = j.integer_or("kv_heads", m.heads, 1, 1 << 16);
    m.ffn_hidden = j.integer("ffn_hidden", 1, 1 << 24);
    m.vocab = j.integer("vocab", 1, 100000000);
    m.experts = j.integer_or("experts", 0, 0, 1 << 16);
    m.experts_per_token = j.integer_or("experts_per_token", 0, 0, 1 << 16);
    m.gated_ffn = j.boolean_or("gated_ffn", false);
    m.tied_embeddings = j.boolean_or("tied_embeddings", false);
    m.details = read_details(j, m);
    if (j.has("source")) m.source = j.string("source");

    if (m.hidden % m.heads != 0) {
        j.fail_at("heads", "hidden " + std::to_string(m.hidden) + " is not divisible by heads " + std::to_string(m.heads));
    }
    if (m.kv_heads > m.heads || m.heads % m.kv_heads != 0) {
        j.fail_at("kv_heads", "kv_heads " + std::to_string(m.kv_heads) + " must divide heads " + std::to_string(m.heads));
    }
    if (m.is_moe()) {
        if (m.experts_per_token < 1 || m.experts_per_token > m.experts) {
            j.fail_at("experts_per_token", "must be between 1 and experts (" + std::to_string(m.experts) + ")");
        }
    } else if (m.experts_per_token > 1) {
        j.fail_at("experts_per_token", "set without experts > 1");
    }
    return m;
}

nlohmann::ordered_json model_arch_to_json(const ModelArch& m) {
    nlohmann::ordered_json j;
    j["name"] = m.name;
    j["layers"] = m.layers;
    j["hidden"] = m.hidden;
    j["heads"] = m.heads;
    j["kv_heads"] = m.kv_heads;
    j["ffn_hidden"] = m.ffn_hidden;
    j["vocab"] = m.vocab;
    j["experts"] = m.experts;
    j["experts_per_token"] = m.experts_per_token;
    j["gated_ffn"] = m.gated_ffn;
    j["tied_embeddings"] = m.tied_embeddings;
    return j;
}

GpuType gpu_type_from_json(const nlohmann::json& value, const std::string& source, const std::string& path) {
    const Object j(value, source, path,
                   {"name", "peak_tflops", "memory_gb", "nvlink_GBps", "pcie_GBps", "hbm_GBps", "efficiency", "source"});
    GpuType g;
    g.name = read_name(j);
    g.peak_flops = units::tflops_to_flops(j.positive("peak_tflops", 1e6));
    g.memory_bytes = j.positive("memory_gb", 1e6) * units::kGB;
    g.nvlink_Bps = units::GBps_to_Bps(j.number_or("nvlink_GBps", 0, 0, 1e6));
    g.pcie_Bps = units::GBps_to_Bps(j.number_or("pcie_GBps", 0, 0, 1e6));
    g.hbm_Bps = units::GBps_to_Bps(j.number_or("hbm_GBps", 0, 0, 1e7));
    g.efficiency = j.positive("efficiency", 1);
    if (g.nvlink_Bps == 0 && g.pcie_Bps == 0) j.fail_at("pcie_GBps", "a GPU without NVLink needs its PCIe bandwidth");
    if (j.has("source")) g.source = j.string("source");
    return g;
}

void Catalog::add_json(const std::string& text, const std::string& source) {
    const nlohmann::json doc = jr::parse(text, source);
    const jr::Object root(doc, source, "", {"gpus", "models"});
    // Parse everything before touching the maps, so a bad file leaves the catalog unchanged.
    std::map<std::string, GpuType> gpus;
    std::map<std::string, ModelArch> models;
    if (root.has("gpus")) {
        const auto& arr = root.array("gpus");
        for (size_t i = 0; i < arr.size(); ++i) {
            const std::string path = jr::item("gpus", i);
            GpuType g = gpu_type_from_json(arr[i], source, path);
            if (!gpus.emplace(lower(g.name), g).second) {
                throw InputError(source, 0, path + ".name", "duplicate GPU type '" + g.name + "'");
            }
        }
    }
    if (root.has("models")) {
        const auto& arr = root.array("models");
        for (size_t i = 0; i < arr.size(); ++i) {
            const std::string path = jr::item("models", i);
            ModelArch m = model_arch_from_json(arr[i], source, path, true);
            if (!models.emplace(m.name, m).second) {
                throw InputError(source, 0, path + ".name", "duplicate model '" + m.name + "'");
            }
        }
    }
    for (auto& [k, v] : gpus) gpus_[k] = std::move(v);
    for (auto& [k, v] : models) models_[k] = std::move(v);
}

const Catalog& Catalog::builtin() {
    // Magic static: built once, thread-safe; the embedded data is ours, so a failure is a build bug.
    static const Catalog catalog = [] {
        Catalog c;
        for (int i = 0; i < embedded::kFileCount; ++i) c.add_json(embedded::kFiles[i].text, embedded::kFiles[i].name);
        return c;
    }();
    return catalog;
}

Catalog Catalog::with_file(const std::string& path) {
    std::string text;
    if (!read_whole_file(path, text)) throw InputError(path, 0, "", std::string("cannot read catalog file: ") + std::strerror(errno));
    Catalog c = builtin();
    c.add_json(text, path);
    return c;
}

const GpuType* Catalog::gpu(const std::string& name) const {
    const auto it = gpus_.find(lower(name));
    return it == gpus_.end() ? nullptr : &it->second;
}

const ModelArch* Catalog::model(const std::string& name) const {
    const auto it = models_.find(lower(name));
    return it == models_.end() ? nullptr : &it->second;
}

std::vector<std::string> Catalog::gpu_names() const {
    std::vector<std::string> out;
    for (const auto& [k, g] : gpus_) out.push_back(g.name);
    return out;
}

std::vector<std::string> Catalog::model_names() const {
    std::vector<std::string> out;
    for (const auto& [k, m] : models_) out.push_back(m.name);
    return out;
}

}  // namespace spiderflow
