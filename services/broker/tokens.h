// Who may call the broker. Tokens are never stored: the tokens file holds SHA-256 hashes, one
// per line, "cluster NAME HASH" (may write NAME's part and read everything) or "reader NAME
// HASH" (reads only: tools, dashboards). A request's bearer token is hashed and compared with
// each hash in constant time, so the comparison leaks nothing about how much of a hash matched.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace spiderflow::broker {

struct Caller {
    enum class Role { cluster, reader };
    Role role = Role::reader;
    std::string name;   // the cluster for Role::cluster
};

class TokenTable {
public:
    // Throws InputError(source, line, ...) on a malformed line, an unknown role, a hash that is
    // not 64 hex digits or a name given twice.
    static TokenTable parse(const std::string& text, const std::string& source);
    static TokenTable load(const std::string& path);

    // The caller whose token this is; nullopt for an unknown token.
    std::optional<Caller> find(const std::string& token) const;
    size_t size() const { return entries_.size(); }

private:
    struct Entry {
        Caller caller;
        std::string hash_hex;
    };
    std::vector<Entry> entries_;
};

// Lower-case hex SHA-256 of `token`: what the tokens file holds (spiderflow-brokerd --hash-token).
std::string token_hash(const std::string& token);

}  // namespace spiderflow::broker
