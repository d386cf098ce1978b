// One catalog entry to and from JSON, shared by the catalog reader, job specs with explicit
// dimensions, plan files and `spiderflow catalog`. Readers throw InputError naming source and
// field path.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "common/model/catalog.h"
#include "common/model/job_spec.h"

namespace spiderflow {

// require_name: catalog entries need "name"; a job spec's inline model may omit it.
ModelArch model_arch_from_json(const nlohmann::json& j, const std::string& source, const std::string& path,
                               bool require_name);
// The dimensions every format writes (plan files, `spiderflow catalog --format json`), in the
// catalog's field names and order.
nlohmann::ordered_json model_arch_to_json(const ModelArch& m);
GpuType gpu_type_from_json(const nlohmann::json& j, const std::string& source, const std::string& path);
std::string lower(std::string s);
// A job's "recompute": "none", "selective" or "full"; plan files and job specs written before the
// word also say true (full) or false (none).
Recompute recompute_from_json(const nlohmann::json& value, const std::string& source, const std::string& field);

}  // namespace spiderflow
