// Constructors of the concrete schedulers, one file each. Callers use make_scheduler(name);
// the factory table in scheduler.cpp is the one place that maps names to these.
// (A table rather than static self-registration: these objects live in a static archive, and
// the linker would drop files nothing references.)
#pragma once

#include <memory>

#include "common/coflow/scheduler.h"

namespace spiderflow::coflow {

std::unique_ptr<Scheduler> make_fair_scheduler();
std::unique_ptr<Scheduler> make_varys_scheduler();
std::unique_ptr<Scheduler> make_sincronia_scheduler();
std::unique_ptr<Scheduler> make_aalo_scheduler();
std::unique_ptr<Scheduler> make_hermod_scheduler();
std::unique_ptr<Scheduler> make_llm_scheduler();

}  // namespace spiderflow::coflow
