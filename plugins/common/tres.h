// Small helpers on Slurm's text formats that need no Slurm headers.
#pragma once

#include <optional>
#include <string>

namespace spiderflow::plugin {

// "gres:gpu:16", "gres/gpu=16", "gres:gpu:a100:16", "cpu=4,gres/gpu=2" -> the GPU count.
std::optional<int> gpus_in_tres(const char* tres);

// 64-bit FNV-1a as 16 hex digits: the plan file's name.
std::string content_hash(const std::string& text);

}  // namespace spiderflow::plugin
