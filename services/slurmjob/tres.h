// Small helpers on Slurm's text formats that need no Slurm headers.
#pragma once

#include <optional>
#include <string>

namespace spiderflow::slurmjob {

// One GPU entry of a TRES string: "gres:gpu:16", "gres/gpu=16", "gres:gpu:a100:16".
struct GpuTres {
    int count = 1;
    std::string type;          // Slurm's GPU type name, empty when none
    bool count_given = false;  // "gres:gpu:abc" is Slurm's type abc, count 1: no count written
};
// "cpu=4,gres/gpu=2" -> the GPU entry; nullopt when there is none.
std::optional<GpuTres> gpu_in_tres(const char* tres);
// Just the count.
std::optional<int> gpus_in_tres(const char* tres);

}  // namespace spiderflow::slurmjob
