// Every Slurm client loads every select_*.so of PluginDir (22.05's select_g_init(0)), and
// `spiderflow` and the agent link the public libslurm.so, which has none of slurmctld's node
// and switch tables. Defined here the way Slurm's own select plugins define them, and exported
// (select.map): in slurmctld and Slurm's commands the process's own copy wins the lookup, and
// elsewhere the plugin still loads instead of failing on an undefined symbol.
#include "plugins/slurm_internal.h"

extern "C" {
node_record_t** node_record_table_ptr;
int node_record_count;
switch_record_t* switch_record_table;
int switch_record_cnt;
}
