// The comment a cross-site job's part carries in Slurm: the agent writes it when it submits or
// releases the part (and finds its parts by it); the part's batch step adds how its script
// ended when that was a failure, so the agent hears of it while the step waits for the verdict.
//   "spiderflow-xjob ID part K attempt A"                         a part
//   "spiderflow-xjob ID part K attempt A ended exit code 1"       ... whose batch script failed
#pragma once

#include <cstddef>
#include <string>

namespace spiderflow::slurmjob {

struct PartComment {
    std::string xjob;
    size_t part = 0;
    int attempt = 0;
    std::string ended;  // how the batch script ended ("exit code 1", "signal 9"); empty = it has not
};

std::string format_part_comment(const PartComment& c);
// False for any other comment (a user's own, a malformed one).
bool parse_part_comment(const std::string& comment, PartComment* out);

// "exit code N" or "signal N" for a wait() status.
std::string exit_words(int status);

}  // namespace spiderflow::slurmjob
