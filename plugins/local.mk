# plugins: thin Slurm adapters over libspiderflow (owner: slurm).

# Slurm-free code shared by the SPANK and job_submit plugins (and their unit tests).
noinst_LTLIBRARIES += libsf_slurmplugin.la
libsf_slurmplugin_la_SOURCES = \
	plugins/common/hostlist.cpp \
	plugins/common/hostlist.h \
	plugins/common/job_options.cpp \
	plugins/common/job_options.h \
	plugins/common/plan_summary.cpp \
	plugins/common/plan_summary.h \
	plugins/common/job_traffic.cpp \
	plugins/common/job_traffic.h \
	plugins/common/rank_order.cpp \
	plugins/common/rank_order.h \
	plugins/common/site_config.cpp \
	plugins/common/site_config.h \
	plugins/common/slurm_host.h \
	plugins/common/submit_planner.cpp \
	plugins/common/submit_planner.h \
	plugins/common/topology_cache.cpp \
	plugins/common/topology_cache.h \
	plugins/common/tres.cpp \
	plugins/common/tres.h

# Plugins are modules loaded by Slurm daemons: libspiderflow goes in statically (its
# convenience libraries are PIC), no -lslurm, and a version script exports only the API.
slurmplugin_LTLIBRARIES += plugins/spank/spiderflow.la plugins/job_submit/job_submit_spiderflow.la

plugins_spank_spiderflow_la_SOURCES = \
	plugins/spank/config.cpp \
	plugins/spank/context_allocator.cpp \
	plugins/spank/context_remote_plan.cpp \
	plugins/spank/context_remote_plan.h \
	plugins/spank/context_job_script.cpp \
	plugins/spank/context_remote.cpp \
	plugins/spank/options.cpp \
	plugins/spank/spank_plugin.cpp \
	plugins/spank/spank_state.h
plugins_spank_spiderflow_la_LDFLAGS = -module -avoid-version -shared \
	-Wl,--version-script=$(srcdir)/plugins/spank/spank.map
plugins_spank_spiderflow_la_LIBADD = libsf_slurmplugin.la libspiderflow.la
EXTRA_plugins_spank_spiderflow_la_DEPENDENCIES = $(srcdir)/plugins/spank/spank.map

plugins_job_submit_job_submit_spiderflow_la_SOURCES = \
	plugins/job_submit/job_desc_edit.cpp \
	plugins/job_submit/job_desc_edit.h \
	plugins/job_submit/job_submit_spiderflow.cpp
plugins_job_submit_job_submit_spiderflow_la_LDFLAGS = -module -avoid-version -shared \
	-Wl,--version-script=$(srcdir)/plugins/job_submit/job_submit.map
plugins_job_submit_job_submit_spiderflow_la_LIBADD = libsf_slurmplugin.la libspiderflow.la
EXTRA_plugins_job_submit_job_submit_spiderflow_la_DEPENDENCIES = $(srcdir)/plugins/job_submit/job_submit.map

EXTRA_DIST += plugins/spank/spank.map plugins/job_submit/job_submit.map
