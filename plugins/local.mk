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
# libstdc++ goes in statically (hidden by the version script): loading the shared one costs every
# sbatch/srun/salloc ~2 ms of symbol relocation (bench/submit_bench.sh). Linked with libtool's C
# tag (gcc) so it does not add its own -nostdlib ... -lstdc++ and undo the static one.
plugins_spank_spiderflow_la_LDFLAGS = -module -avoid-version -shared \
	-Wl,--version-script=$(srcdir)/plugins/spank/spank.map \
	-Wl,-Bstatic,-lstdc++,-Bdynamic -XCClinker -static-libgcc -Wl,--gc-sections
plugins_spank_spiderflow_la_LINK = $(LIBTOOL) $(AM_V_lt) --tag=CC $(AM_LIBTOOLFLAGS) $(LIBTOOLFLAGS) \
	--mode=link $(CXXLD) $(AM_CXXFLAGS) $(CXXFLAGS) $(plugins_spank_spiderflow_la_LDFLAGS) $(LDFLAGS) -o $@
plugins_spank_spiderflow_la_LIBADD = libsf_slurmjob_client.la libsf_plan_transport.la libsf_util.la $(ZLIB_LIBS) $(DL_LIBS)
EXTRA_plugins_spank_spiderflow_la_DEPENDENCIES = $(srcdir)/plugins/spank/spank.map

# Its step side, dlopen()ed by the plugin in slurmstepd and slurmd only.
plugins_spank_spiderflow_stepd_la_SOURCES = \
	plugins/spank/context_job_script.cpp \
	plugins/spank/context_remote.cpp \
	plugins/spank/context_remote_plan.cpp \
	plugins/spank/spank_env.cpp \
	plugins/spank/stepd_entry.cpp \
	plugins/spank/stepd_state.h
plugins_spank_spiderflow_stepd_la_CXXFLAGS = $(AM_CXXFLAGS)
plugins_spank_spiderflow_stepd_la_LDFLAGS = -module -avoid-version -shared \
	-Wl,--version-script=$(srcdir)/plugins/spank/stepd.map
# Only what steps use: topology readers, the plan schema, NCCL settings and traffic classes; no
# planner, no solver.
plugins_spank_spiderflow_stepd_la_LIBADD = libsf_slurmjob.la libsf_coflow.la libsf_cost.la libsf_plan.la libsf_topology.la \
	libsf_model.la libsf_plan_transport.la libsf_util.la $(HWLOC_LIBS) $(ZLIB_LIBS)
EXTRA_plugins_spank_spiderflow_stepd_la_DEPENDENCIES = $(srcdir)/plugins/spank/stepd.map

plugins_job_submit_job_submit_spiderflow_la_SOURCES = \
	plugins/job_submit/job_desc_edit.cpp \
	plugins/job_submit/job_desc_edit.h \
	plugins/job_submit/job_submit_spiderflow.cpp
plugins_job_submit_job_submit_spiderflow_la_LDFLAGS = -module -avoid-version -shared \
	-Wl,--version-script=$(srcdir)/plugins/job_submit/job_submit.map
plugins_job_submit_job_submit_spiderflow_la_LIBADD = libsf_submit.la libsf_slurmjob.la libspiderflow.la
EXTRA_plugins_job_submit_job_submit_spiderflow_la_DEPENDENCIES = $(srcdir)/plugins/job_submit/job_submit.map

EXTRA_DIST += plugins/spank/spank.map plugins/spank/stepd.map plugins/job_submit/job_submit.map

# Slurm loads .so files only: libtool's .la files are removed. Debug info is 95% of a plugin (libspiderflow is linked in statically): daemons and every
# client command would map ~50 MB per plugin. Installed copies keep their symbols (backtraces
# in slurmctld's log) and drop the debug sections; the build tree keeps them for gdb.
install-data-hook:
	for so in job_submit_spiderflow.so spiderflow.so spiderflow_stepd.so; do \
	  f="$(DESTDIR)$(slurmplugindir)/$$so"; \
	  if test -f "$$f"; then $(STRIP) --strip-debug "$$f" || exit 1; fi; \
	  rm -f "$(DESTDIR)$(slurmplugindir)/$${so%.so}.la"; \
	done
