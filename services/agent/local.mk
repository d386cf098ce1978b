# The cluster agent's library: how it sees Slurm, builds and diffs parts, publishes and carries
# out the broker's orders. Used by spiderflow-agent (federation/agent) and by sched/spiderflow,
# which hosts the same agent inside slurmctld.
noinst_LTLIBRARIES += libsf_agent.la
libsf_agent_la_SOURCES = \
	services/agent/cluster_observation.h \
	services/agent/part_builder.cpp \
	services/agent/part_builder.h \
	services/agent/agent_conf.cpp \
	services/agent/agent_conf.h \
	services/agent/agent.cpp \
	services/agent/agent_metrics.cpp \
	services/agent/agent_metrics.h \
	services/agent/agent.h \
	services/agent/agent_setup.cpp \
	services/agent/agent_setup.h \
	services/agent/agent_reload.cpp \
	services/agent/agent_reload.h \
	services/agent/slurm_observer.cpp \
	services/agent/slurm_observer.h \
	services/agent/part_runner.cpp \
	services/agent/part_runner.h \
	services/agent/part_fence.cpp \
	services/agent/part_fence.h \
	services/agent/probe_runner.cpp \
	services/agent/probe_runner.h \
	services/agent/home_jobs.cpp \
	services/agent/home_jobs.h \
	services/agent/measured_links.cpp \
	services/agent/measured_links.h \
	services/agent/slurm_hands.cpp \
	services/agent/slurm_hands.h \
	services/agent/start_nudges.cpp \
	services/agent/start_nudges.h
libsf_agent_la_CPPFLAGS = $(AM_CPPFLAGS) $(SLURM_CPPFLAGS)

