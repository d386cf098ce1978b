// A dense test model with every dimension given, shared by tests that count FLOPs, bytes or
// layers by hand (catalog models are too large to check on paper).
#pragma once

#include <string>

#include "common/model/catalog.h"

namespace spiderflow::test {

// kv_heads = heads (plain multi-head attention), untied embeddings, no experts.
inline ModelArch dense_model(const std::string& name, int layers, int hidden, int heads, int ffn_hidden, int vocab) {
    ModelArch m;
    m.name = name;
    m.layers = layers;
    m.hidden = hidden;
    m.heads = heads;
    m.kv_heads = heads;
    m.ffn_hidden = ffn_hidden;
    m.vocab = vocab;
    return m;
}

}  // namespace spiderflow::test
