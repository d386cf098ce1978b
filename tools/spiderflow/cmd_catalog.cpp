// `spiderflow catalog [gpus|models]`: the built-in GPU and model catalogs, as the planner sees them.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/model/catalog.h"
#include "common/model/model_json.h"
#include "common/util/units.h"
#include "common/util/cli_options.h"
#include "tools/spiderflow/command.h"

namespace spiderflow::cli {
namespace {

constexpr const char* kUsage =
    "usage: spiderflow catalog [gpus|models] [--format text|json]\n\n"
    "Prints the built-in catalogs (common/model/catalog/*.json): the names that topology files\n"
    "(gpu_type) and --model accept, with their figures. Without a subcommand prints both.\n\n";

constexpr const char* kFooter = "\nExit status: 0 printed, 2 unknown subcommand or option.\n";

std::string num(const char* f, double x) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, x);
    return buf;
}

std::string cell(const std::string& s, size_t w) { return s.size() >= w ? " " + s : std::string(w - s.size(), ' ') + s; }

// Names left-aligned in a column as wide as the longest name plus two spaces.
size_t name_width(const std::vector<std::string>& names) {
    size_t w = 4;
    for (const auto& n : names) w = std::max(w, n.size());
    return w + 2;
}

std::string left(const std::string& s, size_t w) { return s + std::string(w > s.size() ? w - s.size() : 0, ' '); }

std::string params_text(double p) { return p >= 1e9 ? num("%.1fB", p / 1e9) : num("%.0fM", p / 1e6); }

void gpus_text(const Catalog& cat, std::ostream& out) {
    const auto names = cat.gpu_names();
    const size_t w = name_width(names);
    out << "GPU types (" << names.size() << ")\n"
        << left("name", w) << "memory_GB  peak_TFLOPS  HBM_GBps  NVLink_GBps  PCIe_GBps  efficiency\n";
    for (const auto& name : names) {
        const GpuType& g = *cat.gpu(name);
        out << left(name, w - 2) << cell(num("%g", g.memory_bytes / units::kGB), 11)
            << cell(num("%g", g.peak_flops / 1e12), 13) << cell(g.hbm_Bps > 0 ? num("%g", g.hbm_Bps / 1e9) : "-", 10)
            << cell(g.nvlink_Bps > 0 ? num("%g", g.nvlink_Bps / 1e9) : "-", 13) << cell(num("%g", g.pcie_Bps / 1e9), 11)
            << cell(num("%g", g.efficiency), 12) << "\n";
    }
}

void models_text(const Catalog& cat, std::ostream& out) {
    const auto names = cat.model_names();
    const size_t w = name_width(names);
    out << "models (" << names.size() << ")\n"
        << left("name", w) << "layers  hidden  heads  kv_heads    ffn    vocab  experts   params\n";
    for (const auto& name : names) {
        const ModelArch& m = *cat.model(name);
        const std::string experts = m.is_moe() ? std::to_string(m.experts) + "/top" + std::to_string(m.experts_per_token) : "-";
        out << left(name, w - 2) << cell(std::to_string(m.layers), 8)
            << cell(std::to_string(m.hidden), 8) << cell(std::to_string(m.heads), 7) << cell(std::to_string(m.kv_heads), 10)
            << cell(std::to_string(m.ffn_hidden), 7) << cell(std::to_string(m.vocab), 9) << cell(experts, 9)
            << cell(params_text(m.total_params()), 9) << "\n";
    }
}

nlohmann::ordered_json gpus_json(const Catalog& cat) {
    auto arr = nlohmann::ordered_json::array();
    for (const auto& name : cat.gpu_names()) {
        const GpuType& g = *cat.gpu(name);
        nlohmann::ordered_json o;
        o["name"] = g.name;
        o["memory_gb"] = g.memory_bytes / units::kGB;
        o["peak_tflops"] = g.peak_flops / 1e12;
        o["hbm_GBps"] = g.hbm_Bps / 1e9;
        o["nvlink_GBps"] = g.nvlink_Bps / 1e9;
        o["pcie_GBps"] = g.pcie_Bps / 1e9;
        o["efficiency"] = g.efficiency;
        o["source"] = g.source;
        arr.push_back(std::move(o));
    }
    return arr;
}

nlohmann::ordered_json models_json(const Catalog& cat) {
    auto arr = nlohmann::ordered_json::array();
    for (const auto& name : cat.model_names()) {
        const ModelArch& m = *cat.model(name);
        nlohmann::ordered_json o = model_arch_to_json(m);
        if (m.details) {
            const LayerDetails& d = *m.details;
            o["normalization"] = to_string(d.normalization);
            o["position_embedding"] = to_string(d.position_embedding);
            o["rotary_base"] = d.position_embedding == PositionEmbedding::rope ? nlohmann::ordered_json(d.rotary_base)
                                                                               : nlohmann::ordered_json(nullptr);
            o["bias_linear"] = d.bias_linear;
            o["activation"] = to_string(d.activation);
        }
        o["params"] = m.total_params();
        o["source"] = m.source;
        arr.push_back(std::move(o));
    }
    return arr;
}

int run_catalog(const std::vector<std::string>& args) {
    std::string format = "text";
    OptionTable t("spiderflow catalog", kUsage, kFooter, 17);
    t.line("gpus", "GPU types: memory (GB), peak dense bf16/fp16 TFLOPS, HBM, NVLink (per\n"
                   "direction) and PCIe bandwidth (GB/s), achievable fraction of peak");
    t.line("models", "model architectures: layers, hidden size, attention heads, KV heads,\n"
                     "FFN size (per expert for MoE), vocabulary, experts, parameters");
    t.value("--format", "FMT", "text (default) or json (the catalog files' units)", one_of(&format, {"text", "json"}));
    t.words(1);
    const auto p = t.parse_or_help(args, 1, std::cout);
    if (!p) return kExitOk;
    const std::string which = p->words.empty() ? "" : p->words[0];
    if (!p->words.empty() && which != "gpus" && which != "models") {
        std::cerr << "spiderflow: catalog: unknown subcommand '" << which << "' (gpus or models)\n" << t.help();
        return kExitBadInput;
    }

    const Catalog& cat = Catalog::builtin();
    const bool gpus = which != "models", models = which != "gpus";
    if (format == "json") {
        nlohmann::ordered_json j;
        if (gpus) j["gpus"] = gpus_json(cat);
        if (models) j["models"] = models_json(cat);
        std::cout << j.dump(2) << "\n";
        return kExitOk;
    }
    if (gpus) gpus_text(cat, std::cout);
    if (gpus && models) std::cout << "\n";
    if (models) models_text(cat, std::cout);
    return kExitOk;
}

const Registration reg{"catalog", "list the built-in GPU types and model architectures", &run_catalog};

}  // namespace
}  // namespace spiderflow::cli
