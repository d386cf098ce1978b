// GPU type names as sites and drivers write them ("a100_80gb" in gres.conf, "NVIDIA
// A100-SXM4-80GB" from NVML) mapped to our catalog keys ("A100-80GB").
//
// The table is deliberately small and holds only spellings that name exactly one catalog
// entry. Ambiguous ones stay as written: "a100" may be the 40 or 80 GB part and "h100" the SXM
// or PCIe part, so guessing would silently mis-plan; the planner reports an unknown type
// instead and the site can name the type in its own topology file.
#pragma once

#include <string>

namespace spiderflow {

// Returns the catalog key for `written` when the spelling is unambiguous, else `written`
// unchanged. Case, '_' vs '-', spaces and an "NVIDIA " prefix do not matter.
std::string canonical_gpu_type(const std::string& written);

// True when `word` names a GPU type (a catalog key, a mapped alias or a well-known ambiguous
// family such as "a100"); used to pick the GPU type out of a node's Feature= list.
bool looks_like_gpu_type(const std::string& word);

}  // namespace spiderflow
