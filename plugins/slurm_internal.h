// slurmctld's internal headers, for the two plugins that live inside its scheduling
// (select/spiderflow_cons_tres, sched/spiderflow). They come from the configured source tree of
// exactly the installed Slurm (configure --with-slurm-source; the build puts it on -iquote so
// Slurm's own "config.h" wins over ours). C headers, so C linkage; every symbol they name
// resolves from slurmctld at load time (plugins do not link libslurm).
#pragma once

// Slurm's headers are C and not written for C++ warnings.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wparentheses"
extern "C" {
#include "config.h"
// First, as Slurm's own plugins do: calls go to the slurm_-prefixed names every libslurm
// exports, so a select plugin also loads in a program linked with the public libslurm.so.
#include "src/common/slurm_xlator.h"
#include "src/common/bitstring.h"
#include "src/common/env.h"
#include "src/common/gres.h"
#include "src/common/list.h"
#include "src/common/node_conf.h"
#include "src/common/plugin.h"
#include "src/common/read_config.h"
#include "src/common/select.h"
#include "src/common/slurm_topology.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"
}
#pragma GCC diagnostic pop
