// One catalog entry from JSON, shared by the catalog reader and job specs with explicit
// dimensions. Throws InputError naming source and field path.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "libspiderflow/model/catalog.h"

namespace spiderflow {

// require_name: catalog entries need "name"; a job spec's inline model may omit it.
ModelArch model_arch_from_json(const nlohmann::json& j, const std::string& source, const std::string& path,
                               bool require_name);
GpuType gpu_type_from_json(const nlohmann::json& j, const std::string& source, const std::string& path);
std::string lower(std::string s);

}  // namespace spiderflow
