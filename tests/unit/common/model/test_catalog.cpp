// Catalog: the builtin data is complete and cited, lookups ignore case, bad files name the problem.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "common/model/catalog.h"
#include "common/model/job_spec.h"
#include "common/util/errors.h"
#include "common/util/units.h"

using namespace spiderflow;

TEST(Catalog, BuiltinHasTheRequiredGpusWithSources) {
    const Catalog& c = Catalog::builtin();
    for (const char* name : {"V100", "A100-40GB", "A100-80GB", "H100-SXM", "H200", "L40S"}) {
        const GpuType* g = c.gpu(name);
        ASSERT_NE(g, nullptr) << name;
        EXPECT_GT(g->peak_flops, 1e13) << name;
        EXPECT_GT(g->memory_bytes, 1e10) << name;
        EXPECT_GT(g->efficiency, 0) << name;
        EXPECT_LE(g->efficiency, 1) << name;
        EXPECT_FALSE(g->source.empty()) << name;
    }
    EXPECT_EQ(c.gpu("L40S")->nvlink_Bps, 0);  // PCIe only
    EXPECT_GT(c.gpu("L40S")->pcie_Bps, 0);
}

TEST(Catalog, BuiltinHasTheRequiredModelsWithSources) {
    const Catalog& c = Catalog::builtin();
    for (const char* name : {"gpt3-1.3b", "gpt3-13b", "gpt3-175b", "llama2-7b", "llama2-13b", "llama2-70b", "llama3-8b",
                             "llama3-70b", "llama3-405b", "mixtral-8x7b"}) {
        const ModelArch* m = c.model(name);
        ASSERT_NE(m, nullptr) << name;
        EXPECT_FALSE(m->source.empty()) << name;
        EXPECT_EQ(m->hidden % m->heads, 0) << name;
    }
}

TEST(Catalog, LookupIgnoresCase) {
    const Catalog& c = Catalog::builtin();
    EXPECT_EQ(c.gpu("a100-80gb"), c.gpu("A100-80GB"));
    EXPECT_EQ(c.model("LLaMA3-70B"), c.model("llama3-70b"));
    EXPECT_EQ(c.model("no-such-model"), nullptr);
}

// Parameter counts against the published sizes (model cards / papers); tolerance 1.5% since we
// leave out biases and learned position embeddings.
TEST(Catalog, ParameterCountsMatchPublishedSizes) {
    const Catalog& c = Catalog::builtin();
    struct Case {
        const char* name;
        double published;
    } cases[] = {{"gpt3-175b", 175e9}, {"gpt3-13b", 13e9},    {"gpt3-1.3b", 1.3e9},   {"llama2-7b", 6.74e9},
                 {"llama2-13b", 13.0e9}, {"llama2-70b", 69.0e9}, {"llama3-8b", 8.03e9}, {"llama3-70b", 70.6e9},
                 {"llama3-405b", 405e9}, {"mixtral-8x7b", 46.7e9}};
    for (const auto& k : cases) {
        const double n = c.model(k.name)->total_params();
        EXPECT_NEAR(n / k.published, 1.0, 0.015) << k.name << " has " << n;
    }
    // Mixtral paper: 13B active parameters per token (12.9B).
    const ModelArch& mx = *c.model("mixtral-8x7b");
    const double active = mx.layers * mx.active_params_per_layer() + mx.embedding_params();
    EXPECT_NEAR(active / 12.9e9, 1.0, 0.02);
}

TEST(Catalog, HandCountedLayer) {
    ModelArch m;
    m.layers = 2;
    m.hidden = 64;
    m.heads = 4;
    m.kv_heads = 2;
    m.ffn_hidden = 256;
    m.vocab = 100;
    m.gated_ffn = true;
    // Q,O: 2*64*64; K,V: 2*64*(2*16); FFN: 3*64*256; norms: 2*64.
    const double layer = 2.0 * 64 * 64 + 2.0 * 64 * 32 + 3.0 * 64 * 256 + 2.0 * 64;
    EXPECT_DOUBLE_EQ(m.params_per_layer(), layer);
    EXPECT_DOUBLE_EQ(m.total_params(), 2 * layer + 2.0 * 100 * 64 + 64);
    m.tied_embeddings = true;
    EXPECT_DOUBLE_EQ(m.embedding_params(), 100.0 * 64);
}

TEST(Catalog, SyntaxErrorNamesTheLine) {
    Catalog c;
    try {
        c.add_json("{\n  \"gpus\": [\n    {\"name\": \"X\",}\n  ]\n}\n", "site.json");
        FAIL() << "accepted bad JSON";
    } catch (const InputError& e) {
        EXPECT_EQ(e.source(), "site.json");
        EXPECT_EQ(e.line(), 3);
    }
}

TEST(Catalog, UnknownKeyNamesTheFieldPath) {
    Catalog c;
    try {
        c.add_json(R"({"gpus": [{"name": "X", "peak_tflops": 10, "memory_gb": 16, "pcie_GBps": 16,
                     "efficiency": 0.5, "peak_tflop": 3}]})",
                   "site.json");
        FAIL() << "accepted an unknown key";
    } catch (const InputError& e) {
        EXPECT_EQ(e.field(), "gpus[0].peak_tflop");
        EXPECT_NE(std::string(e.what()).find("unknown key"), std::string::npos);
    }
}

TEST(Catalog, BadValuesNameTheField) {
    Catalog c;
    auto field_of = [&](const std::string& text) -> std::string {
        try {
            c.add_json(text, "f.json");
        } catch (const InputError& e) {
            return e.field();
        }
        return "(accepted)";
    };
    EXPECT_EQ(field_of(R"({"models": [{"name": "m", "layers": 2, "hidden": 100, "heads": 3, "ffn_hidden": 4, "vocab": 5}]})"),
              "models[0].heads");
    EXPECT_EQ(field_of(R"({"models": [{"name": "m", "layers": -2, "hidden": 96, "heads": 3, "ffn_hidden": 4, "vocab": 5}]})"),
              "models[0].layers");
    EXPECT_EQ(field_of(R"({"models": [{"name": "m", "layers": 2, "hidden": 96, "heads": 3, "vocab": 5}]})"),
              "models[0].ffn_hidden");
    EXPECT_EQ(field_of(R"({"gpus": [{"name": "g", "peak_tflops": "fast", "memory_gb": 1, "pcie_GBps": 1, "efficiency": 0.5}]})"),
              "gpus[0].peak_tflops");
    EXPECT_EQ(field_of(R"({"gpus": [{"name": "g", "peak_tflops": 1, "memory_gb": 1, "pcie_GBps": 1, "efficiency": 1.5}]})"),
              "gpus[0].efficiency");
    EXPECT_EQ(field_of(R"({"models": [{"name": "m", "layers": 2, "hidden": 96, "heads": 3, "ffn_hidden": 4, "vocab": 5,
                        "experts": 8, "experts_per_token": 9}]})"),
              "models[0].experts_per_token");
    EXPECT_EQ(field_of(R"({"gpu": []})"), "gpu");
    EXPECT_EQ(field_of(R"([1, 2])"), "");
    // Nothing of a rejected file lands in the catalog.
    EXPECT_EQ(c.model("m"), nullptr);
}

TEST(Catalog, SiteFileAddsAndReplacesEntries) {
    const std::string path = testing::TempDir() + "/sf_site_catalog.json";
    {
        std::ofstream out(path);
        out << R"({"gpus": [{"name": "MI300X", "peak_tflops": 1307, "memory_gb": 192, "pcie_GBps": 64,
                   "efficiency": 0.4, "source": "site"},
                  {"name": "a100-80gb", "peak_tflops": 312, "memory_gb": 80, "nvlink_GBps": 300, "pcie_GBps": 32,
                   "efficiency": 0.25, "source": "site measurement"}]})";
    }
    const Catalog c = Catalog::with_file(path);
    ASSERT_NE(c.gpu("mi300x"), nullptr);
    EXPECT_DOUBLE_EQ(c.gpu("mi300x")->memory_bytes, 192e9);
    EXPECT_DOUBLE_EQ(c.gpu("A100-80GB")->efficiency, 0.25);
    EXPECT_NE(c.model("llama3-70b"), nullptr);  // builtin still there
    EXPECT_NE(Catalog::builtin().gpu("A100-80GB")->efficiency, 0.25);
    std::remove(path.c_str());
    EXPECT_THROW(Catalog::with_file(path), InputError);
}

// Found by fuzz_catalog: a number literal beyond double made nlohmann throw out_of_range.
TEST(Catalog, HugeNumberLiteralIsAnInputError) {
    Catalog c;
    EXPECT_THROW(c.add_json(R"({"gpus": [{"name": "X", "peak_tflops": 1e999}]})", "f.json"), InputError);
    EXPECT_THROW(parse_job_spec(R"({"model": "llama3-8b", "global_batch": 9e9999})", "j.json", Catalog::builtin()),
                 InputError);
}

// How the layers are built (what Megatron-LM is told beyond the dimensions) comes from the data,
// with Megatron-LM's defaults for what an entry does not say.
TEST(Catalog, LayerDetailsOfTheBuiltinModels) {
    const Catalog& c = Catalog::builtin();
    struct Case {
        const char* name;
        Normalization norm;
        PositionEmbedding pos;
        int rotary_base;  // 0: no RoPE
        bool bias;
        Activation act;
    } cases[] = {
        {"gpt3-175b", Normalization::layer_norm, PositionEmbedding::learned_absolute, 0, true, Activation::gelu},
        {"llama2-70b", Normalization::rms_norm, PositionEmbedding::rope, 10000, false, Activation::swiglu},
        {"llama3-8b", Normalization::rms_norm, PositionEmbedding::rope, 500000, false, Activation::swiglu},
        {"mixtral-8x7b", Normalization::rms_norm, PositionEmbedding::rope, 1000000, false, Activation::swiglu},
        {"nemotron4-340b", Normalization::layer_norm, PositionEmbedding::rope, 10000, false, Activation::squared_relu},
    };
    for (const auto& k : cases) {
        const ModelArch& m = *c.model(k.name);
        ASSERT_TRUE(m.details) << k.name;
        EXPECT_EQ(m.details->normalization, k.norm) << k.name;
        EXPECT_EQ(m.details->position_embedding, k.pos) << k.name;
        if (k.rotary_base) {
            EXPECT_EQ(m.details->rotary_base, k.rotary_base) << k.name;
        }
        EXPECT_EQ(m.details->bias_linear, k.bias) << k.name;
        EXPECT_EQ(m.details->activation, k.act) << k.name;
    }
    // Every builtin entry has them, and swiglu exactly when the FFN is gated.
    for (const auto& name : c.model_names()) {
        const ModelArch& m = *c.model(name);
        ASSERT_TRUE(m.details) << name;
        EXPECT_EQ(m.details->activation == Activation::swiglu, m.gated_ffn) << name;
    }
    EXPECT_STREQ(to_string(Normalization::rms_norm), "RMSNorm");
    EXPECT_STREQ(to_string(PositionEmbedding::learned_absolute), "learned_absolute");
    EXPECT_STREQ(to_string(Activation::squared_relu), "squared_relu");
}

TEST(Catalog, LayerDetailsDefaultsAndStrictValues) {
    const std::string dims = R"("name": "m", "layers": 2, "hidden": 96, "heads": 3, "ffn_hidden": 4, "vocab": 5)";
    Catalog c;
    c.add_json(R"({"models": [{)" + dims + R"(}]})", "f.json");
    const LayerDetails d = *c.model("m")->details;
    EXPECT_EQ(d.normalization, Normalization::layer_norm);
    EXPECT_EQ(d.position_embedding, PositionEmbedding::learned_absolute);
    EXPECT_EQ(d.rotary_base, 10000);
    EXPECT_TRUE(d.bias_linear);
    EXPECT_EQ(d.activation, Activation::gelu);
    c.add_json(R"({"models": [{)" + dims + R"(, "gated_ffn": true}]})", "f.json");
    EXPECT_EQ(c.model("m")->details->activation, Activation::swiglu);  // follows gated_ffn
    c.add_json(R"({"models": [{)" + dims + R"(, "activation": "swiglu", "position_embedding": "rope",
               "rotary_base": 50000, "normalization": "RMSNorm", "bias_linear": false}]})",
               "f.json");
    const ModelArch& s = *c.model("m");
    EXPECT_TRUE(s.gated_ffn);  // activation alone sets it
    EXPECT_EQ(s.details->rotary_base, 50000);
    EXPECT_EQ(s.details->normalization, Normalization::rms_norm);
    EXPECT_FALSE(s.details->bias_linear);

    auto error_of = [&](const std::string& extra) -> InputError {
        try {
            c.add_json(R"({"models": [{)" + dims + ", " + extra + "}]}", "f.json");
        } catch (const InputError& e) {
            return e;
        }
        return InputError("", 0, "(accepted)", "");
    };
    EXPECT_EQ(error_of(R"("normalization": "rmsnorm")").field(), "models[0].normalization");
    EXPECT_NE(std::string(error_of(R"("normalization": "rmsnorm")").what()).find("LayerNorm, RMSNorm"),
              std::string::npos);
    EXPECT_EQ(error_of(R"("normalization": 1)").field(), "models[0].normalization");
    EXPECT_EQ(error_of(R"("position_embedding": "alibi")").field(), "models[0].position_embedding");
    EXPECT_EQ(error_of(R"("activation": "relu")").field(), "models[0].activation");
    EXPECT_EQ(error_of(R"("activation": "gelu", "gated_ffn": true)").field(), "models[0].activation");
    EXPECT_EQ(error_of(R"("activation": "swiglu", "gated_ffn": false)").field(), "models[0].activation");
    EXPECT_EQ(error_of(R"("bias_linear": "no")").field(), "models[0].bias_linear");
    EXPECT_EQ(error_of(R"("rotary_base": 10000)").field(), "models[0].rotary_base");  // without rope
    EXPECT_EQ(error_of(R"("position_embedding": "rope", "rotary_base": 0)").field(), "models[0].rotary_base");
    EXPECT_EQ(error_of(R"("position_embedding": "rope", "rotary_base": 1.5)").field(), "models[0].rotary_base");
    // A job spec's own model reads the same way.
    const JobSpec j = parse_job_spec(R"({"model": {"layers": 4, "hidden": 256, "heads": 8, "ffn_hidden": 1024,
                                        "vocab": 1000, "normalization": "RMSNorm"}, "global_batch": 8})",
                                     "job.json", Catalog::builtin());
    ASSERT_TRUE(j.model.details);
    EXPECT_EQ(j.model.details->normalization, Normalization::rms_norm);
}
