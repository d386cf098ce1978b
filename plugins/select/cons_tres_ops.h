// select/cons_tres's entry points in this process, which select/spiderflow_cons_tres forwards to.
// Slurm loads every select_*.so of PluginDir (and runs each one's init) before it calls any of
// them, so the binding is made on first use from the copy Slurm already loaded.
#pragma once

#include "plugins/slurm_internal.h"

namespace spiderflow::plugin {

// Never null: when cons_tres cannot be bound the process cannot schedule at all, so this logs
// why and ends it the way Slurm ends on a missing plugin (fatal), rather than crash later.
const slurm_select_ops_t& cons_tres();
// Drops our reference to cons_tres's .so (fini).
void release_cons_tres();

}  // namespace spiderflow::plugin
