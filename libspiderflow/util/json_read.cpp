#include "libspiderflow/util/json_read.h"

#include <cmath>
#include <cstring>

#include "libspiderflow/util/errors.h"

namespace spiderflow::jsonread {

int line_of(const std::string& text, size_t byte) {
    int line = 1;
    for (size_t i = 0; i < text.size() && i < byte; ++i) {
        if (text[i] == '\n') ++line;
    }
    return line;
}

std::string join(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }

nlohmann::json parse(const std::string& text, const std::string& source) {
    try {
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        // e.byte is 1-based and points just past the offending character.
        const size_t at = e.byte > 0 ? e.byte - 1 : 0;
        std::string what = e.what();
        // nlohmann's message starts with "[json.exception.parse_error.101] parse error at line ..."
        const auto pos = what.find("] ");
        if (pos != std::string::npos) what = what.substr(pos + 2);
        throw InputError(source, line_of(text, at), "", "invalid JSON: " + what);
    } catch (const nlohmann::json::exception& e) {
        // e.g. out_of_range 406 for a number literal beyond double (1e999): no position given.
        std::string what = e.what();
        const auto pos = what.find("] ");
        if (pos != std::string::npos) what = what.substr(pos + 2);
        throw InputError(source, 0, "", "invalid JSON: " + what);
    }
}

void require_object(const nlohmann::json& v, const std::string& source, const std::string& path) {
    if (!v.is_object()) throw InputError(source, 0, path, "expected a JSON object");
}

void only_keys(const nlohmann::json& obj, std::initializer_list<const char*> allowed, const std::string& source,
               const std::string& path) {
    require_object(obj, source, path);
    for (auto it = obj.begin(); it != obj.end(); ++it) {
        bool ok = false;
        for (const char* a : allowed) {
            if (it.key() == a) {
                ok = true;
                break;
            }
        }
        if (!ok) {
            std::string list;
            for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + a;
            throw InputError(source, 0, join(path, it.key()), "unknown key (allowed: " + list + ")");
        }
    }
}

std::string get_string(const nlohmann::json& v, const std::string& source, const std::string& path) {
    if (!v.is_string()) throw InputError(source, 0, path, "expected a string");
    return v.get<std::string>();
}

double get_number(const nlohmann::json& v, const std::string& source, const std::string& path) {
    if (!v.is_number()) throw InputError(source, 0, path, "expected a number");
    const double d = v.get<double>();
    if (!std::isfinite(d)) throw InputError(source, 0, path, "expected a finite number");
    return d;
}

int get_int(const nlohmann::json& v, const std::string& source, const std::string& path, int lo, int hi) {
    if (!v.is_number()) throw InputError(source, 0, path, "expected an integer");
    const double d = v.get<double>();
    if (!std::isfinite(d) || d != std::floor(d)) throw InputError(source, 0, path, "expected an integer");
    if (d < lo || d > hi) {
        throw InputError(source, 0, path,
                         "value " + v.dump() + " out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    }
    return static_cast<int>(d);
}

bool get_bool(const nlohmann::json& v, const std::string& source, const std::string& path) {
    if (!v.is_boolean()) throw InputError(source, 0, path, "expected true or false");
    return v.get<bool>();
}

}  // namespace spiderflow::jsonread
