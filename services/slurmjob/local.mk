# Slurm jobs without Slurm (the services level): the user's options and the site's config,
# TRES and host lists, rank order, traffic classes and the submit decision. The plugins, the
# `spiderflow` command and later the agent call these; none of it includes a Slurm header.

# What client commands load: option table and site config parsing. It links nothing heavier than
# libsf_util and the plan transport, because every sbatch/srun/salloc on the cluster loads the
# SPANK plugin that uses it.
noinst_LTLIBRARIES += libsf_slurmjob_client.la
libsf_slurmjob_client_la_SOURCES = \
	services/slurmjob/job_options.cpp \
	services/slurmjob/job_options.h \
	services/slurmjob/spiderflow_conf.cpp \
	services/slurmjob/spiderflow_conf.h
# (convenience libraries never nest one another: each object is linked once)

# Shared by job_submit, the step side of the SPANK plugin, the CLI and their unit tests.
noinst_LTLIBRARIES += libsf_slurmjob.la
libsf_slurmjob_la_SOURCES = \
	services/slurmjob/coflow_levels.cpp \
	services/slurmjob/coflow_levels.h \
	services/slurmjob/hostlist.cpp \
	services/slurmjob/hostlist.h \
	services/slurmjob/plan_summary.cpp \
	services/slurmjob/plan_summary.h \
	services/slurmjob/part_comment.cpp \
	services/slurmjob/part_comment.h \
	services/slurmjob/job_traffic.cpp \
	services/slurmjob/job_traffic.h \
	services/slurmjob/rank_order.cpp \
	services/slurmjob/rank_order.h \
	services/slurmjob/topology_cache.cpp \
	services/slurmjob/topology_cache.h \
	services/slurmjob/tres.cpp \
	services/slurmjob/tres.h
libsf_slurmjob_la_LIBADD = libsf_slurmjob_client.la

# What job_submit decides: the only code here that plans, so the only part that needs the planner.
noinst_LTLIBRARIES += libsf_submit.la
libsf_submit_la_SOURCES = \
	services/slurmjob/plan_step_env.cpp \
	services/slurmjob/plan_step_env.h \
	services/slurmjob/submit_planner.cpp \
	services/slurmjob/submit_planner.h \
	services/slurmjob/submit_stop.h \
	services/slurmjob/decision_cache.cpp \
	services/slurmjob/planner_budget.cpp \
	services/slurmjob/planner_budget.h \
	services/slurmjob/request_reconcile.cpp \
	services/slurmjob/request_reconcile.h \
	services/slurmjob/request_shape.cpp \
	services/slurmjob/request_shape.h \
	services/slurmjob/cross_site_shape.cpp \
	services/slurmjob/cross_site_shape.h \
	services/slurmjob/submit_site.cpp \
	services/slurmjob/submit_site.h
