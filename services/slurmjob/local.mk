# Slurm jobs without Slurm (layer 5, library faces): the user's options and the site's config,
# TRES and host lists, rank order, traffic classes and the submit decision. The plugins, the
# `spiderflow` command and later the agent call these; none of it includes a Slurm header.

# What client commands load: option table and site config parsing. It links nothing heavier than
# libsf_util and the plan transport, because every sbatch/srun/salloc on the cluster loads the
# SPANK plugin that uses it.
noinst_LTLIBRARIES += libsf_slurmjob_client.la
libsf_slurmjob_client_la_SOURCES = \
	common/slurmjob/job_options.cpp \
	common/slurmjob/job_options.h \
	common/slurmjob/spiderflow_conf.cpp \
	common/slurmjob/spiderflow_conf.h
# (convenience libraries never nest one another: each object is linked once)

# Shared by job_submit, the step side of the SPANK plugin, the CLI and their unit tests.
noinst_LTLIBRARIES += libsf_slurmjob.la
libsf_slurmjob_la_SOURCES = \
	common/slurmjob/coflow_levels.cpp \
	common/slurmjob/coflow_levels.h \
	common/slurmjob/hostlist.cpp \
	common/slurmjob/hostlist.h \
	common/slurmjob/plan_summary.cpp \
	common/slurmjob/plan_summary.h \
	common/slurmjob/job_traffic.cpp \
	common/slurmjob/job_traffic.h \
	common/slurmjob/rank_order.cpp \
	common/slurmjob/rank_order.h \
	common/slurmjob/topology_cache.cpp \
	common/slurmjob/topology_cache.h \
	common/slurmjob/tres.cpp \
	common/slurmjob/tres.h
libsf_slurmjob_la_LIBADD = libsf_slurmjob_client.la

# What job_submit decides: the only code here that plans, so the only part that needs the planner.
noinst_LTLIBRARIES += libsf_submit.la
libsf_submit_la_SOURCES = \
	common/slurmjob/submit_planner.cpp \
	common/slurmjob/submit_planner.h \
	common/slurmjob/submit_site.cpp \
	common/slurmjob/submit_site.h
