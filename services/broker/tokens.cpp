#include "services/broker/tokens.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <sstream>
#include <stdexcept>

#include "common/util/errors.h"
#include "common/util/key_value_conf.h"

namespace spiderflow::broker {

std::string token_hash(const std::string& token) {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    if (EVP_Digest(token.data(), token.size(), digest, &len, EVP_sha256(), nullptr) != 1) {
        throw std::runtime_error("SHA-256 failed");
    }
    static const char* hex = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < len; ++i) {
        out += hex[digest[i] >> 4];
        out += hex[digest[i] & 15];
    }
    return out;
}

TokenTable TokenTable::parse(const std::string& text, const std::string& source) {
    TokenTable t;
    for (const auto& [line, body] : uncommented_lines(text)) {
        std::istringstream words(body);
        std::string role, name, hex, extra;
        words >> role;
        if (!(words >> name >> hex) || (words >> extra)) {
            throw InputError(source, line, "", "expected 'cluster NAME SHA256' or 'reader NAME SHA256'");
        }
        Entry e;
        if (role == "cluster") e.caller.role = Caller::Role::cluster;
        else if (role == "reader") e.caller.role = Caller::Role::reader;
        else throw InputError(source, line, role, "unknown role (cluster or reader)");
        if (hex.size() != 64 || hex.find_first_not_of("0123456789abcdef") != std::string::npos) {
            throw InputError(source, line, name, "not a SHA-256 in lower-case hex (spiderflow-brokerd --hash-token)");
        }
        for (const auto& other : t.entries_) {
            if (other.caller.name == name) throw InputError(source, line, name, "name given twice");
        }
        e.caller.name = name;
        e.hash_hex = hex;
        t.entries_.push_back(std::move(e));
    }
    return t;
}

TokenTable TokenTable::load(const std::string& path) { return parse(read_conf_file(path), path); }

std::optional<Caller> TokenTable::find(const std::string& token) const {
    if (token.empty()) return std::nullopt;
    const std::string h = token_hash(token);
    std::optional<Caller> found;
    // Every entry is compared, found or not: the time taken does not tell which one matched.
    for (const auto& e : entries_) {
        if (CRYPTO_memcmp(h.data(), e.hash_hex.data(), h.size()) == 0) found = e.caller;
    }
    return found;
}

}  // namespace spiderflow::broker
