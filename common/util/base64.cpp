#include "common/util/base64.h"

namespace spiderflow {
namespace {

constexpr const char* kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

}  // namespace

std::string base64(std::string_view in) {
    std::string out;
    out.reserve((in.size() + 2) / 3 * 4);
    size_t i = 0;
    for (; i + 2 < in.size(); i += 3) {
        const unsigned v = (static_cast<unsigned char>(in[i]) << 16) | (static_cast<unsigned char>(in[i + 1]) << 8) |
                           static_cast<unsigned char>(in[i + 2]);
        for (int s = 18; s >= 0; s -= 6) out += kAlphabet[(v >> s) & 63];
    }
    if (i < in.size()) {
        unsigned v = static_cast<unsigned char>(in[i]) << 16;
        if (i + 1 < in.size()) v |= static_cast<unsigned char>(in[i + 1]) << 8;
        out += kAlphabet[(v >> 18) & 63];
        out += kAlphabet[(v >> 12) & 63];
        out += i + 1 < in.size() ? kAlphabet[(v >> 6) & 63] : '=';
        out += '=';
    }
    return out;
}

bool unbase64(std::string_view in, size_t from, std::string* out) {
    int value[256];
    for (int& v : value) v = -1;
    for (int k = 0; k < 64; ++k) value[static_cast<unsigned char>(kAlphabet[k])] = k;
    if ((in.size() - from) % 4 != 0) return false;
    out->clear();
    out->reserve((in.size() - from) / 4 * 3);
    for (size_t i = from; i < in.size(); i += 4) {
        int q[4];
        int pad = 0;
        for (int k = 0; k < 4; ++k) {
            const char c = in[i + static_cast<size_t>(k)];
            if (c == '=' && i + 4 == in.size() && k >= 2) {
                q[k] = 0;
                ++pad;
                continue;
            }
            if (pad > 0) return false;
            q[k] = value[static_cast<unsigned char>(c)];
            if (q[k] < 0) return false;
        }
        const unsigned v = (q[0] << 18) | (q[1] << 12) | (q[2] << 6) | q[3];
        *out += static_cast<char>((v >> 16) & 255);
        if (pad < 2) *out += static_cast<char>((v >> 8) & 255);
        if (pad < 1) *out += static_cast<char>(v & 255);
    }
    return true;
}


}  // namespace spiderflow
