# plugins: thin Slurm adapters over libspiderflow.

# Plugins are modules loaded by Slurm daemons and clients: libspiderflow goes in statically (its
# convenience libraries are PIC), no -lslurm, and a version script exports only the API.
slurmplugin_LTLIBRARIES += plugins/spank/spiderflow.la plugins/spank/spiderflow_stepd.la \
	plugins/job_submit/job_submit_spiderflow.la

# The SPANK plugin proper: what sbatch, salloc and srun load.
plugins_spank_spiderflow_la_SOURCES = \
	plugins/spank/config.cpp \
	plugins/spank/context_client.cpp \
	plugins/spank/options.cpp \
	plugins/spank/spank_env.cpp \
	plugins/spank/spank_plugin.cpp \
	plugins/spank/spank_state.h \
	plugins/spank/stepd_hooks.h \
	plugins/spank/stepd_loader.cpp
# Plugins every Slurm command loads (this one, select/spiderflow_cons_tres): libstdc++ goes in
# statically (hidden by the version script): loading the shared one costs every sbatch/srun/salloc
# ~2 ms of symbol relocation (bench/submit_bench.sh). Linked with libtool's C tag (gcc) so it does
# not add its own -nostdlib ... -lstdc++ and undo the static one.
CLIENT_PLUGIN_LDFLAGS = -Wl,-Bstatic,-lstdc++,-Bdynamic -XCClinker -static-libgcc -Wl,--gc-sections
CLIENT_PLUGIN_LINK = $(LIBTOOL) $(AM_V_lt) --tag=CC $(AM_LIBTOOLFLAGS) $(LIBTOOLFLAGS) --mode=link $(CXXLD) \
	$(AM_CXXFLAGS) $(CXXFLAGS)
plugins_spank_spiderflow_la_LDFLAGS = -module -avoid-version -shared \
	-Wl,--version-script=$(srcdir)/plugins/spank/spank.map $(CLIENT_PLUGIN_LDFLAGS)
plugins_spank_spiderflow_la_LINK = $(CLIENT_PLUGIN_LINK) $(plugins_spank_spiderflow_la_LDFLAGS) $(LDFLAGS) -o $@
plugins_spank_spiderflow_la_LIBADD = libsf_slurmjob_client.la libsf_plan_transport.la libsf_util.la $(ZLIB_LIBS) $(DL_LIBS)
EXTRA_plugins_spank_spiderflow_la_DEPENDENCIES = $(srcdir)/plugins/spank/spank.map

# Its step side, dlopen()ed by the plugin in slurmstepd and slurmd only.
plugins_spank_spiderflow_stepd_la_SOURCES = \
	plugins/spank/context_job_script.cpp \
	plugins/spank/context_remote.cpp \
	plugins/spank/context_remote_plan.cpp \
	plugins/spank/context_remote_verdict.cpp \
	plugins/spank/spank_env.cpp \
	plugins/spank/stepd_entry.cpp \
	plugins/spank/stepd_state.h
plugins_spank_spiderflow_stepd_la_CXXFLAGS = $(AM_CXXFLAGS)
plugins_spank_spiderflow_stepd_la_LDFLAGS = -module -avoid-version -shared \
	-Wl,--version-script=$(srcdir)/plugins/spank/stepd.map
# Only what steps use: topology readers, the plan schema, NCCL settings and traffic classes; no
# planner, no solver.
plugins_spank_spiderflow_stepd_la_LIBADD = libsf_slurmjob.la libsf_launch_env.la libsf_coflow.la libsf_cost.la libsf_plan.la libsf_topology.la \
	libsf_model.la libsf_plan_transport.la libsf_util.la $(HWLOC_LIBS) $(ZLIB_LIBS)
EXTRA_plugins_spank_spiderflow_stepd_la_DEPENDENCIES = $(srcdir)/plugins/spank/stepd.map

plugins_job_submit_job_submit_spiderflow_la_SOURCES = \
	plugins/job_submit/job_desc_edit.cpp \
	plugins/job_submit/job_desc_edit.h \
	plugins/job_submit/job_submit_spiderflow.cpp
plugins_job_submit_job_submit_spiderflow_la_LDFLAGS = -module -avoid-version -shared \
	-Wl,--version-script=$(srcdir)/plugins/job_submit/job_submit.map
plugins_job_submit_job_submit_spiderflow_la_LIBADD = libsf_submit.la libsf_slurmjob.la libsf_launch_env.la libspiderflow.la
EXTRA_plugins_job_submit_job_submit_spiderflow_la_DEPENDENCIES = $(srcdir)/plugins/job_submit/job_submit.map

EXTRA_DIST += plugins/spank/spank.map plugins/spank/stepd.map plugins/job_submit/job_submit.map

# Slurm loads .so files only: libtool's .la files are removed. Debug info is 95% of a plugin (libspiderflow is linked in statically): daemons and every
# client command would map ~50 MB per plugin. Installed copies keep their symbols (backtraces
# in slurmctld's log) and drop the debug sections; the build tree keeps them for gdb.
install-data-hook:
	for so in job_submit_spiderflow.so spiderflow.so spiderflow_stepd.so select_spiderflow_cons_tres.so sched_spiderflow.so topology_spiderflow_tree.so; do \
	  f="$(DESTDIR)$(slurmplugindir)/$$so"; \
	  if test -f "$$f"; then $(STRIP) --strip-debug "$$f" || exit 1; fi; \
	  rm -f "$(DESTDIR)$(slurmplugindir)/$${so%.so}.la"; \
	done

if HAVE_SLURM_SOURCE
# The plugins inside slurmctld's scheduling: they read its internal structs, so they build only
# against the configured source of exactly the installed Slurm (--with-slurm-source). -iquote
# makes Slurm's headers find Slurm's own "config.h" before ours.
SLURM_INTERNAL_CPPFLAGS = -I$(top_srcdir) -I$(top_builddir) $(JSON_CFLAGS) -iquote $(SLURM_SOURCE)

# select/spiderflow_cons_tres is loaded by every Slurm command (select_g_init loads every
# select_*.so of PluginDir), so it is linked like the SPANK plugin.
slurmplugin_LTLIBRARIES += plugins/select/select_spiderflow_cons_tres.la
plugins_select_select_spiderflow_cons_tres_la_SOURCES = \
	plugins/slurm_internal.h \
	plugins/plugin_dir.cpp \
	plugins/plugin_dir.h \
	plugins/select/client_globals.cpp \
	plugins/select/cons_tres_ops.cpp \
	plugins/select/cons_tres_ops.h \
	plugins/select/plan_placement.cpp \
	plugins/select/plan_placement.h \
	plugins/select/select_spiderflow_cons_tres.cpp
plugins_select_select_spiderflow_cons_tres_la_CPPFLAGS = $(SLURM_INTERNAL_CPPFLAGS)
plugins_select_select_spiderflow_cons_tres_la_LDFLAGS = -module -avoid-version -shared \
	-Wl,--version-script=$(srcdir)/plugins/select/select.map $(CLIENT_PLUGIN_LDFLAGS)
plugins_select_select_spiderflow_cons_tres_la_LINK = $(CLIENT_PLUGIN_LINK) \
	$(plugins_select_select_spiderflow_cons_tres_la_LDFLAGS) $(LDFLAGS) -o $@
# libsf_topology brings -lhwloc along although --gc-sections drops every hwloc call (libtool
# puts -l flags before any -Wl,--as-needed).
plugins_select_select_spiderflow_cons_tres_la_LIBADD = libsf_slurmjob.la libsf_site.la libsf_topology.la libsf_util.la \
	$(DL_LIBS)
EXTRA_plugins_select_select_spiderflow_cons_tres_la_DEPENDENCIES = $(srcdir)/plugins/select/select.map

# topology/spiderflow_tree (22.05's interface): loaded by the daemons only (TopologyPlugin);
# slurmctld numbers its nodes in SpiderFlow's rank order through it.
slurmplugin_LTLIBRARIES += plugins/topology/topology_spiderflow_tree.la
plugins_topology_topology_spiderflow_tree_la_SOURCES = \
	plugins/slurm_internal.h \
	plugins/plugin_dir.cpp \
	plugins/plugin_dir.h \
	plugins/topology/topology_spiderflow_tree.cpp
plugins_topology_topology_spiderflow_tree_la_CPPFLAGS = $(SLURM_INTERNAL_CPPFLAGS)
plugins_topology_topology_spiderflow_tree_la_LDFLAGS = -module -avoid-version -shared \
	-Wl,--version-script=$(srcdir)/plugins/topology/topology.map
# libsf_slurmjob goes in whole (a libtool convenience library), with what its other parts call.
plugins_topology_topology_spiderflow_tree_la_LIBADD = libsf_slurmjob.la libsf_launch_env.la libsf_coflow.la libsf_cost.la libsf_plan.la \
	libsf_topology.la libsf_model.la libsf_plan_transport.la libsf_util.la $(HWLOC_LIBS) $(ZLIB_LIBS) $(DL_LIBS)
EXTRA_plugins_topology_topology_spiderflow_tree_la_DEPENDENCIES = $(srcdir)/plugins/topology/topology.map

# sched/spiderflow: loaded by slurmctld only (SchedulerType), so linked like job_submit.
slurmplugin_LTLIBRARIES += plugins/sched/sched_spiderflow.la
plugins_sched_sched_spiderflow_la_SOURCES = \
	plugins/slurm_internal.h \
	plugins/plugin_dir.cpp \
	plugins/plugin_dir.h \
	plugins/sched/backfill_host.cpp \
	plugins/sched/backfill_host.h \
	plugins/sched/coflow_priorities.cpp \
	plugins/sched/coflow_priorities.h \
	plugins/sched/ctld_agent.cpp \
	plugins/sched/ctld_agent.h \
	plugins/sched/ctld_observer.cpp \
	plugins/sched/ctld_observer.h \
	plugins/sched/sched_spiderflow.cpp
plugins_sched_sched_spiderflow_la_CPPFLAGS = $(SLURM_INTERNAL_CPPFLAGS) $(SLURM_CPPFLAGS)
plugins_sched_sched_spiderflow_la_LDFLAGS = -module -avoid-version -shared \
	-Wl,--version-script=$(srcdir)/plugins/sched/sched.map
# The agent's Slurm calls (LibslurmHands) resolve from slurmctld's libslurmfull: no -lslurm.
plugins_sched_sched_spiderflow_la_LIBADD = libsf_agent.la libsf_broker_api.la libsf_probe.la libsf_coalloc.la libsf_broker_client.la libsf_slurmjob.la \
	libsf_launch_env.la libspiderflow.la $(CURL_LIBS) $(DL_LIBS)
EXTRA_plugins_sched_sched_spiderflow_la_DEPENDENCIES = $(srcdir)/plugins/sched/sched.map
endif
EXTRA_DIST += plugins/select/select.map plugins/sched/sched.map plugins/topology/topology.map
# Headers every plugin may include (not one plugin's sources).
EXTRA_DIST += plugins/slurm_host.h plugins/slurm_conf_file.h
