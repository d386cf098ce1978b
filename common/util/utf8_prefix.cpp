#include "common/util/utf8_prefix.h"

namespace spiderflow {

std::string utf8_prefix(const std::string& text, size_t max_bytes) {
    if (text.size() <= max_bytes) return text;
    size_t cut = max_bytes;
    // Back over continuation bytes (10xxxxxx) to the lead byte of the character the cut splits.
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    return text.substr(0, cut);
}

}  // namespace spiderflow
