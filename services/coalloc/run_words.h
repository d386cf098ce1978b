// How a cross-site job's events and runs name its parts, its layout and its placement: the words
// `spiderflow jobs` and the home job's output show.
#pragma once

#include <cstddef>
#include <string>

#include "services/coalloc/xjob.h"

namespace spiderflow::coalloc {

// "part 1 on ohio".
std::string describe_part(const XJob& job, size_t k);
// "tp=2 pp=2 dp=2", from the plan's SPIDERFLOW_* step settings (empty figures when absent).
std::string layout_of(const XJob& job);
// "alpha:2x2,beta:2x2": each part's cluster, nodes x GPUs per node, in part order.
std::string placement_of(const XJob& job);

}  // namespace spiderflow::coalloc
