// Strict JSON reading shared by every file format (catalog, job spec, topology, site state,
// plan): syntax errors carry the line, every other error the field path; unknown keys are
// refused so a typo never passes silently.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>

#include <nlohmann/json.hpp>

namespace spiderflow::jsonread {

// Parses text. A syntax error becomes InputError(source, line, "", "invalid JSON: ..."); any
// other nlohmann failure (a number beyond double, 1e999) the same without a line.
nlohmann::json parse(const std::string& text, const std::string& source);

// 1-based line holding the 0-based byte offset `byte` of text.
int line_of(const std::string& text, size_t byte);
// The field path of `key` inside `path` ("gpus[2]" + "peak_tflops" -> "gpus[2].peak_tflops").
std::string join(const std::string& path, const std::string& key);

// Refuses keys of `obj` outside `allowed` (InputError naming path.key). obj must be an object.
void only_keys(const nlohmann::json& obj, std::initializer_list<const char*> allowed,
               const std::string& source, const std::string& path);
void require_object(const nlohmann::json& v, const std::string& source, const std::string& path);

// Typed getters; `path` is the full field path for messages ("gpus[2].peak_tflops").
std::string get_string(const nlohmann::json& v, const std::string& source, const std::string& path);
double get_number(const nlohmann::json& v, const std::string& source, const std::string& path);
// Integral and within [lo, hi].
int get_int(const nlohmann::json& v, const std::string& source, const std::string& path, int lo, int hi);
bool get_bool(const nlohmann::json& v, const std::string& source, const std::string& path);

}  // namespace spiderflow::jsonread
