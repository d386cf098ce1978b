// Strict JSON reading shared by every file format (catalog, job spec, topology, site state,
// plan, cross-site jobs): syntax errors carry the line, every other error the field path;
// unknown keys are refused so a typo never passes silently, and an integer field takes only
// an integer literal (3, never 3.0). Each format names its own fields; the wording of every
// generic problem ("missing", "expected a string", "value 9 out of range [0, 8]") is here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace spiderflow::jsonread {

// Upper bounds for the integer readers below, for fields whose only limit is their type's.
constexpr int kIntMax = std::numeric_limits<int>::max();
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();

// Parses text. A syntax error becomes InputError(source, line, "", "invalid JSON: ..."); any
// other nlohmann failure (a number beyond double, 1e999) the same without a line.
nlohmann::json parse(const std::string& text, const std::string& source);

// 1-based line holding the 0-based byte offset `byte` of text.
int line_of(const std::string& text, size_t byte);
// The field path of `key` inside `path` ("gpus[2]" + "peak_tflops" -> "gpus[2].peak_tflops").
std::string join(const std::string& path, const std::string& key);
// The path of element i of the array at `path` ("gpus" + 2 -> "gpus[2]").
std::string item(const std::string& path, size_t i);

// Refuses keys of `obj` outside `allowed` (InputError naming path.key). obj must be an object.
void only_keys(const nlohmann::json& obj, std::initializer_list<const char*> allowed,
               const std::string& source, const std::string& path);
void require_object(const nlohmann::json& v, const std::string& source, const std::string& path);
// The member `key` of the object obj; "missing" (naming path.key) when absent.
const nlohmann::json& member(const nlohmann::json& obj, const char* key, const std::string& source,
                             const std::string& path);

// Typed getters of one value; `path` is its full field path for messages ("gpus[2].peak_tflops").
std::string get_string(const nlohmann::json& v, const std::string& source, const std::string& path);
// Finite.
double get_number(const nlohmann::json& v, const std::string& source, const std::string& path);
// Finite and within [lo, hi]; hi may be infinity ("must be >= lo").
double get_number(const nlohmann::json& v, const std::string& source, const std::string& path, double lo, double hi);
// Finite, > 0 and <= hi; hi may be infinity ("must be > 0").
double get_positive(const nlohmann::json& v, const std::string& source, const std::string& path, double hi);
// An integer literal within [lo, hi].
int get_int(const nlohmann::json& v, const std::string& source, const std::string& path, int lo, int hi);
int64_t get_i64(const nlohmann::json& v, const std::string& source, const std::string& path, int64_t lo, int64_t hi);
bool get_bool(const nlohmann::json& v, const std::string& source, const std::string& path);
// Returns v itself once it is known to be an array.
const nlohmann::json& get_array(const nlohmann::json& v, const std::string& source, const std::string& path);
std::vector<std::string> get_strings(const nlohmann::json& v, const std::string& source, const std::string& path);

// One JSON object of the input with its source and path, so that each getter takes only the
// key: Object o(j, "site.json", "clusters[2]", {"name", "nodes"}); o.integer("gpus", 0, 8).
// It refers to j, which must outlive it. Getters without "_or" refuse an absent key.
class Object {
public:
    // Refuses a value that is not an object.
    Object(const nlohmann::json& j, std::string source, std::string path);
    // ... and any key outside `allowed`.
    Object(const nlohmann::json& j, std::string source, std::string path, std::initializer_list<const char*> allowed);

    // Refuses any key outside `allowed`, for objects whose keys depend on one of their fields.
    void only(std::initializer_list<const char*> allowed) const;
    bool has(const char* key) const { return j_->contains(key); }
    const nlohmann::json& at(const char* key) const { return member(*j_, key, source_, path_); }
    std::string path_of(const char* key) const { return join(path_, key); }
    // InputError naming this object's path, or path.key.
    [[noreturn]] void fail(const std::string& what) const;
    [[noreturn]] void fail_at(const char* key, const std::string& what) const;

    std::string string(const char* key) const;
    std::string string_or(const char* key, const std::string& absent) const;
    // A string that is not empty ("must not be empty").
    std::string name(const char* key) const;
    double number(const char* key) const;
    double number(const char* key, double lo, double hi) const;
    double number_or(const char* key, double absent, double lo, double hi) const;
    double positive(const char* key, double hi = std::numeric_limits<double>::infinity()) const;
    int integer(const char* key, int lo, int hi) const;
    int integer_or(const char* key, int absent, int lo, int hi) const;
    int64_t i64(const char* key, int64_t lo, int64_t hi) const;
    int64_t i64_or(const char* key, int64_t absent, int64_t lo, int64_t hi) const;
    bool boolean(const char* key) const;
    bool boolean_or(const char* key, bool absent) const;
    const nlohmann::json& array(const char* key) const;
    std::vector<std::string> strings(const char* key) const;
    Object object(const char* key) const;
    Object object(const char* key, std::initializer_list<const char*> allowed) const;
    // Each element of the array member `key` as an object (paths key[0], key[1], ...).
    std::vector<Object> objects(const char* key) const;
    std::vector<Object> objects(const char* key, std::initializer_list<const char*> allowed) const;

    const nlohmann::json& value() const { return *j_; }
    const std::string& source() const { return source_; }
    const std::string& path() const { return path_; }

private:
    const nlohmann::json* j_;
    std::string source_;
    std::string path_;
};

}  // namespace spiderflow::jsonread
