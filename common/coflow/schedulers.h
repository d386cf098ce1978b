// Constructors of the concrete schedulers, one file each. Callers use make_scheduler(name);
// the factory table in scheduler.cpp is the one place that maps names to these.
// (A table rather than static self-registration: these objects live in a static archive, and
// the linker would drop files nothing references.)
#pragma once

#include <memory>
#include <vector>

#include "common/coflow/scheduler.h"

namespace spiderflow::coflow {

std::unique_ptr<Scheduler> make_fair_scheduler();
std::unique_ptr<Scheduler> make_varys_scheduler();
std::unique_ptr<Scheduler> make_sincronia_scheduler();
std::unique_ptr<Scheduler> make_aalo_scheduler();
std::unique_ptr<Scheduler> make_hermod_scheduler();
std::unique_ptr<Scheduler> make_llm_scheduler();

}  // namespace spiderflow::coflow

namespace spiderflow::coflow {

// Internals exposed for tests.
// Sincronia's BSSI order of `coflows` (indices), highest priority first.
std::vector<int> bssi_order(const std::vector<ActiveFlow>& flows, const std::vector<ActiveCoflow>& coflows,
                            const Network& net);
// Aalo's D-CLAS queue (0 = highest) for a coflow that has sent `sent_bytes`.
int aalo_queue(double sent_bytes);

}  // namespace spiderflow::coflow
