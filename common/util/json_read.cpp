#include "common/util/json_read.h"

#include <cmath>
#include <cstdio>
#include <utility>

#include "common/util/errors.h"

namespace spiderflow::jsonread {

using nlohmann::json;

namespace {

[[noreturn]] void fail(const std::string& source, const std::string& path, const std::string& what) {
    throw InputError(source, 0, path, what);
}

// A bound as a person writes it: 1000000, not 1e+06 or 1000000.000000.
std::string bound_text(double x) {
    if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
    if (x == std::floor(x) && std::fabs(x) < 1e15) return std::to_string(static_cast<long long>(x));
    char buf[40];
    std::snprintf(buf, sizeof buf, "%g", x);
    return buf;
}

std::string out_of_range(const json& v, const std::string& open, const std::string& lo, const std::string& hi,
                         const std::string& close) {
    return "value " + v.dump() + " out of range " + open + lo + ", " + hi + close;
}

}  // namespace

int line_of(const std::string& text, size_t byte) {
    int line = 1;
    for (size_t i = 0; i < text.size() && i < byte; ++i) {
        if (text[i] == '\n') ++line;
    }
    return line;
}

std::string join(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }

std::string item(const std::string& path, size_t i) { return path + "[" + std::to_string(i) + "]"; }

json parse(const std::string& text, const std::string& source) {
    try {
        return json::parse(text);
    } catch (const json::parse_error& e) {
        // e.byte is 1-based and points just past the offending character.
        const size_t at = e.byte > 0 ? e.byte - 1 : 0;
        std::string what = e.what();
        // nlohmann's message starts with "[json.exception.parse_error.101] parse error at line ..."
        const auto pos = what.find("] ");
        if (pos != std::string::npos) what = what.substr(pos + 2);
        throw InputError(source, line_of(text, at), "", "invalid JSON: " + what);
    } catch (const json::exception& e) {
        // e.g. out_of_range 406 for a number literal beyond double (1e999): no position given.
        std::string what = e.what();
        const auto pos = what.find("] ");
        if (pos != std::string::npos) what = what.substr(pos + 2);
        throw InputError(source, 0, "", "invalid JSON: " + what);
    }
}

void require_object(const json& v, const std::string& source, const std::string& path) {
    if (!v.is_object()) fail(source, path, "expected a JSON object");
}

void only_keys(const json& obj, std::initializer_list<const char*> allowed, const std::string& source,
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
            fail(source, join(path, it.key()), "unknown key (allowed: " + list + ")");
        }
    }
}

const json& member(const json& obj, const char* key, const std::string& source, const std::string& path) {
    require_object(obj, source, path);
    auto it = obj.find(key);
    if (it == obj.end()) fail(source, join(path, key), "missing");
    return *it;
}

std::string get_string(const json& v, const std::string& source, const std::string& path) {
    if (!v.is_string()) fail(source, path, "expected a string");
    return v.get<std::string>();
}

double get_number(const json& v, const std::string& source, const std::string& path) {
    if (!v.is_number()) fail(source, path, "expected a number");
    const double d = v.get<double>();
    if (!std::isfinite(d)) fail(source, path, "expected a finite number");
    return d;
}

double get_number(const json& v, const std::string& source, const std::string& path, double lo, double hi) {
    const double d = get_number(v, source, path);
    if (d < lo || d > hi) {
        fail(source, path, std::isinf(hi) ? "must be >= " + bound_text(lo)
                                          : out_of_range(v, "[", bound_text(lo), bound_text(hi), "]"));
    }
    return d;
}

double get_positive(const json& v, const std::string& source, const std::string& path, double hi) {
    const double d = get_number(v, source, path);
    if (!(d > 0) || d > hi) {
        fail(source, path, std::isinf(hi) ? "must be > 0" : out_of_range(v, "(", "0", bound_text(hi), "]"));
    }
    return d;
}

int64_t get_i64(const json& v, const std::string& source, const std::string& path, int64_t lo, int64_t hi) {
    // 3.0 is a float literal to nlohmann, and refused: an integer field takes integers only.
    if (!v.is_number_integer()) fail(source, path, "expected an integer");
    bool in_range;
    if (v.is_number_unsigned()) {
        const uint64_t u = v.get<uint64_t>();
        in_range = hi >= 0 && u <= static_cast<uint64_t>(hi) && (lo <= 0 || u >= static_cast<uint64_t>(lo));
    } else {
        const int64_t x = v.get<int64_t>();
        in_range = x >= lo && x <= hi;
    }
    if (!in_range) fail(source, path, out_of_range(v, "[", std::to_string(lo), std::to_string(hi), "]"));
    return v.get<int64_t>();
}

int get_int(const json& v, const std::string& source, const std::string& path, int lo, int hi) {
    return static_cast<int>(get_i64(v, source, path, lo, hi));
}

bool get_bool(const json& v, const std::string& source, const std::string& path) {
    if (!v.is_boolean()) fail(source, path, "expected true or false");
    return v.get<bool>();
}

const json& get_array(const json& v, const std::string& source, const std::string& path) {
    if (!v.is_array()) fail(source, path, "expected an array");
    return v;
}

std::vector<std::string> get_strings(const json& v, const std::string& source, const std::string& path) {
    get_array(v, source, path);
    std::vector<std::string> out;
    for (size_t i = 0; i < v.size(); ++i) out.push_back(get_string(v[i], source, item(path, i)));
    return out;
}

Object::Object(const json& j, std::string source, std::string path)
    : j_(&j), source_(std::move(source)), path_(std::move(path)) {
    require_object(j, source_, path_);
}

Object::Object(const json& j, std::string source, std::string path, std::initializer_list<const char*> allowed)
    : Object(j, std::move(source), std::move(path)) {
    only(allowed);
}

void Object::only(std::initializer_list<const char*> allowed) const { only_keys(*j_, allowed, source_, path_); }

void Object::fail(const std::string& what) const { jsonread::fail(source_, path_, what); }

void Object::fail_at(const char* key, const std::string& what) const { jsonread::fail(source_, path_of(key), what); }

std::string Object::string(const char* key) const { return get_string(at(key), source_, path_of(key)); }

std::string Object::string_or(const char* key, const std::string& absent) const {
    return has(key) ? string(key) : absent;
}

std::string Object::name(const char* key) const {
    std::string s = string(key);
    if (s.empty()) fail_at(key, "must not be empty");
    return s;
}

double Object::number(const char* key) const { return get_number(at(key), source_, path_of(key)); }

double Object::number(const char* key, double lo, double hi) const {
    return get_number(at(key), source_, path_of(key), lo, hi);
}

double Object::number_or(const char* key, double absent, double lo, double hi) const {
    return has(key) ? number(key, lo, hi) : absent;
}

double Object::positive(const char* key, double hi) const { return get_positive(at(key), source_, path_of(key), hi); }

int Object::integer(const char* key, int lo, int hi) const { return get_int(at(key), source_, path_of(key), lo, hi); }

int Object::integer_or(const char* key, int absent, int lo, int hi) const {
    return has(key) ? integer(key, lo, hi) : absent;
}

int64_t Object::i64(const char* key, int64_t lo, int64_t hi) const {
    return get_i64(at(key), source_, path_of(key), lo, hi);
}

int64_t Object::i64_or(const char* key, int64_t absent, int64_t lo, int64_t hi) const {
    return has(key) ? i64(key, lo, hi) : absent;
}

bool Object::boolean(const char* key) const { return get_bool(at(key), source_, path_of(key)); }

bool Object::boolean_or(const char* key, bool absent) const { return has(key) ? boolean(key) : absent; }

const json& Object::array(const char* key) const { return get_array(at(key), source_, path_of(key)); }

std::vector<std::string> Object::strings(const char* key) const { return get_strings(at(key), source_, path_of(key)); }

Object Object::object(const char* key) const { return Object(at(key), source_, path_of(key)); }

Object Object::object(const char* key, std::initializer_list<const char*> allowed) const {
    return Object(at(key), source_, path_of(key), allowed);
}

std::vector<Object> Object::objects(const char* key) const {
    const json& a = array(key);
    std::vector<Object> out;
    out.reserve(a.size());
    for (size_t i = 0; i < a.size(); ++i) out.emplace_back(a[i], source_, item(path_of(key), i));
    return out;
}

std::vector<Object> Object::objects(const char* key, std::initializer_list<const char*> allowed) const {
    std::vector<Object> out = objects(key);
    for (const Object& o : out) o.only(allowed);
    return out;
}

}  // namespace spiderflow::jsonread
