// Strict JSON reading for catalog and job files: syntax errors carry the line, every other
// error the field path; unknown keys are refused so a typo never passes silently.
#pragma once

#include <initializer_list>
#include <string>

#include <nlohmann/json.hpp>

namespace spiderflow::jsonread {

// Parses text; a syntax error becomes InputError(source, line, "", what).
nlohmann::json parse(const std::string& text, const std::string& source);

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
