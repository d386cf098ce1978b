// Catalog reading: the builtin files compiled in (catalog_data.cpp), plus a site's own file.
#include <cctype>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <fstream>
#include <sstream>

#include "libspiderflow/model/catalog.h"
#include "libspiderflow/model/catalog_data.h"
#include "libspiderflow/model/model_json.h"
#include "libspiderflow/util/errors.h"
#include "libspiderflow/util/json_read.h"
#include "libspiderflow/util/units.h"

namespace spiderflow {

namespace jr = jsonread;

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

namespace {

std::string key(const std::string& path, const char* k) { return path + "." + k; }

double positive(const nlohmann::json& j, const char* k, const std::string& source, const std::string& path,
                double max) {
    const double v = jr::get_number(j.at(k), source, key(path, k));
    if (!(v > 0) || v > max) {
        throw InputError(source, 0, key(path, k), "must be > 0 and <= " + std::to_string(static_cast<long long>(max)));
    }
    return v;
}

double non_negative(const nlohmann::json& j, const char* k, const std::string& source, const std::string& path,
                    double max) {
    if (!j.contains(k)) return 0;
    const double v = jr::get_number(j.at(k), source, key(path, k));
    if (v < 0 || v > max) {
        throw InputError(source, 0, key(path, k), "must be >= 0 and <= " + std::to_string(static_cast<long long>(max)));
    }
    return v;
}

void need(const nlohmann::json& j, const char* k, const std::string& source, const std::string& path) {
    if (!j.contains(k)) throw InputError(source, 0, key(path, k), "missing required key");
}

std::string read_name(const nlohmann::json& j, const std::string& source, const std::string& path) {
    need(j, "name", source, path);
    std::string name = jr::get_string(j.at("name"), source, key(path, "name"));
    if (name.empty() || name.size() > 128) throw InputError(source, 0, key(path, "name"), "must be 1-128 characters");
    for (char c : name) {
        if (std::isspace(static_cast<unsigned char>(c)) || !std::isprint(static_cast<unsigned char>(c))) {
            throw InputError(source, 0, key(path, "name"), "must not contain spaces or control characters");
        }
    }
    return name;
}

// One of an enum's catalog spellings (exact, as Megatron-LM's options take them).
template <typename E, size_t N>
E choice(const nlohmann::json& j, const char* k, const std::string& source, const std::string& path,
         const E (&values)[N]) {
    const std::string v = jr::get_string(j.at(k), source, key(path, k));
    std::string known;
    for (E e : values) {
        if (v == to_string(e)) return e;
        known += std::string(known.empty() ? "" : ", ") + to_string(e);
    }
    throw InputError(source, 0, key(path, k), "unknown value '" + v + "' (" + known + ")");
}

// The layer details, defaults filled; may set gated_ffn from "activation" when the entry
// gives only that.
LayerDetails read_details(const nlohmann::json& j, const std::string& source, const std::string& path,
                          ModelArch& m) {
    LayerDetails d;
    if (j.contains("normalization"))
        d.normalization =
            choice(j, "normalization", source, path, {Normalization::layer_norm, Normalization::rms_norm});
    if (j.contains("position_embedding"))
        d.position_embedding = choice(j, "position_embedding", source, path,
                                      {PositionEmbedding::learned_absolute, PositionEmbedding::rope});
    if (j.contains("rotary_base")) {
        if (d.position_embedding != PositionEmbedding::rope)
            throw InputError(source, 0, key(path, "rotary_base"), "set without position_embedding \"rope\"");
        d.rotary_base = jr::get_int(j.at("rotary_base"), source, key(path, "rotary_base"), 1, 1000000000);
    }
    if (j.contains("bias_linear")) d.bias_linear = jr::get_bool(j.at("bias_linear"), source, key(path, "bias_linear"));
    if (!j.contains("activation")) {
        d.activation = m.gated_ffn ? Activation::swiglu : Activation::gelu;
        return d;
    }
    d.activation =
        choice(j, "activation", source, path, {Activation::gelu, Activation::swiglu, Activation::squared_relu});
    const bool gated = d.activation == Activation::swiglu;
    if (!j.contains("gated_ffn")) {
        m.gated_ffn = gated;
    } else if (m.gated_ffn != gated) {
        throw InputError(source, 0, key(path, "activation"),
                         std::string(to_string(d.activation)) + (gated ? " is a gated FFN but gated_ffn is false"
                                                                        : " is a plain FFN but gated_ffn is true"));
    }
    return d;
}

}  // namespace

ModelArch model_arch_from_json(const nlohmann::json& j, const std::string& source, const std::string& path,
                               bool require_name) {
    jr::only_keys(j,
                  {"name", "layers", "hidden", "heads", "kv_heads", "ffn_hidden", "vocab", "experts",
                   "experts_per_token", "gated_ffn", "tied_embeddings", "normalization", "position_embedding",
                   "rotary_base", "bias_linear", "activation", "source"},
                  source, path);
    ModelArch m;
    if (require_name || j.contains("name")) m.name = lower(read_name(j, source, path));
    for (const char* k : {"layers", "hidden", "heads", "ffn_hidden", "vocab"}) need(j, k, source, path);
    m.layers = jr::get_int(j.at("layers"), source, key(path, "layers"), 1, 10000);
    m.hidden = jr::get_int(j.at("hidden"), source, key(path, "hidden"), 1, 1 << 20);
    m.heads = jr::get_int(j.at("heads"), source, key(path, "heads"), 1, 1 << 16);
    m.kv_heads = j.contains("kv_heads") ? jr::get_int(j.at("kv_heads"), source, key(path, "kv_heads"), 1, 1 << 16)
                                        : m.heads;
    m.ffn_hidden = jr::get_int(j.at("ffn_hidden"), source, key(path, "ffn_hidden"), 1, 1 << 24);
    m.vocab = jr::get_int(j.at("vocab"), source, key(path, "vocab"), 1, 100000000);
    m.experts = j.contains("experts") ? jr::get_int(j.at("experts"), source, key(path, "experts"), 0, 1 << 16) : 0;
    m.experts_per_token = j.contains("experts_per_token")
                              ? jr::get_int(j.at("experts_per_token"), source, key(path, "experts_per_token"), 0, 1 << 16)
                              : 0;
    m.gated_ffn = j.contains("gated_ffn") ? jr::get_bool(j.at("gated_ffn"), source, key(path, "gated_ffn")) : false;
    m.tied_embeddings =
        j.contains("tied_embeddings") ? jr::get_bool(j.at("tied_embeddings"), source, key(path, "tied_embeddings")) : false;
    m.details = read_details(j, source, path, m);
    if (j.contains("source")) m.source = jr::get_string(j.at("source"), source, key(path, "source"));

    if (m.hidden % m.heads != 0) {
        throw InputError(source, 0, key(path, "heads"),
                         "hidden " + std::to_string(m.hidden) + " is not divisible by heads " + std::to_string(m.heads));
    }
    if (m.kv_heads > m.heads || m.heads % m.kv_heads != 0) {
        throw InputError(source, 0, key(path, "kv_heads"),
                         "kv_heads " + std::to_string(m.kv_heads) + " must divide heads " + std::to_string(m.heads));
    }
    if (m.is_moe()) {
        if (m.experts_per_token < 1 || m.experts_per_token > m.experts) {
            throw InputError(source, 0, key(path, "experts_per_token"),
                             "must be between 1 and experts (" + std::to_string(m.experts) + ")");
        }
    } else if (m.experts_per_token > 1) {
        throw InputError(source, 0, key(path, "experts_per_token"), "set without experts > 1");
    }
    return m;
}

GpuType gpu_type_from_json(const nlohmann::json& j, const std::string& source, const std::string& path) {
    jr::only_keys(j, {"name", "peak_tflops", "memory_gb", "nvlink_GBps", "pcie_GBps", "hbm_GBps", "efficiency", "source"},
                  source, path);
    GpuType g;
    g.name = read_name(j, source, path);
    for (const char* k : {"peak_tflops", "memory_gb", "efficiency"}) need(j, k, source, path);
    g.peak_flops = units::tflops_to_flops(positive(j, "peak_tflops", source, path, 1e6));
    g.memory_bytes = positive(j, "memory_gb", source, path, 1e6) * units::kGB;
    g.nvlink_Bps = units::GBps_to_Bps(non_negative(j, "nvlink_GBps", source, path, 1e6));
    g.pcie_Bps = units::GBps_to_Bps(non_negative(j, "pcie_GBps", source, path, 1e6));
    g.hbm_Bps = units::GBps_to_Bps(non_negative(j, "hbm_GBps", source, path, 1e7));
    g.efficiency = positive(j, "efficiency", source, path, 1);
    if (g.nvlink_Bps == 0 && g.pcie_Bps == 0) {
        throw InputError(source, 0, key(path, "pcie_GBps"), "a GPU without NVLink needs its PCIe bandwidth");
    }
    if (j.contains("source")) g.source = jr::get_string(j.at("source"), source, key(path, "source"));
    return g;
}

void Catalog::add_json(const std::string& text, const std::string& source) {
    const nlohmann::json doc = jr::parse(text, source);
    jr::only_keys(doc, {"gpus", "models"}, source, "");
    // Parse everything before touching the maps, so a bad file leaves the catalog unchanged.
    std::map<std::string, GpuType> gpus;
    std::map<std::string, ModelArch> models;
    if (doc.contains("gpus")) {
        const auto& arr = doc.at("gpus");
        if (!arr.is_array()) throw InputError(source, 0, "gpus", "expected an array");
        for (size_t i = 0; i < arr.size(); ++i) {
            const std::string path = "gpus[" + std::to_string(i) + "]";
            GpuType g = gpu_type_from_json(arr[i], source, path);
            if (!gpus.emplace(lower(g.name), g).second) {
                throw InputError(source, 0, path + ".name", "duplicate GPU type '" + g.name + "'");
            }
        }
    }
    if (doc.contains("models")) {
        const auto& arr = doc.at("models");
        if (!arr.is_array()) throw InputError(source, 0, "models", "expected an array");
        for (size_t i = 0; i < arr.size(); ++i) {
            const std::string path = "models[" + std::to_string(i) + "]";
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
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path, 0, "", std::string("cannot read catalog file: ") + std::strerror(errno));
    std::ostringstream text;
    text << in.rdbuf();
    Catalog c = builtin();
    c.add_json(text.str(), path);
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
