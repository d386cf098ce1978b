# federation: spiderflow-brokerd and spiderflow-agent.

# The broker's logic without its HTTP server and main(), for the unit tests.
noinst_LTLIBRARIES += libsf_broker.la
libsf_broker_la_SOURCES = \
	federation/brokerd/federation_state.cpp \
	federation/brokerd/federation_state.h \
	federation/brokerd/broker_store.h \
	federation/brokerd/sqlite_store.cpp \
	federation/brokerd/store_backends.h \
	federation/brokerd/store_location.cpp \
	federation/brokerd/lease_keeper.cpp \
	federation/brokerd/lease_keeper.h \
	federation/brokerd/cross_site_jobs.cpp \
	federation/brokerd/cross_site_jobs.h \
	federation/brokerd/brokerd_conf.cpp \
	federation/brokerd/brokerd_conf.h \
	federation/brokerd/tokens.cpp \
	federation/brokerd/tokens.h \
	federation/brokerd/metrics.cpp \
	federation/brokerd/metrics.h \
	federation/brokerd/rate_limit.cpp \
	federation/brokerd/rate_limit.h
libsf_broker_la_CPPFLAGS = $(AM_CPPFLAGS) $(SQLITE_CFLAGS) $(LIBCRYPTO_CFLAGS) -include config.h
libsf_broker_la_LIBADD = $(SQLITE_LIBS) $(LIBCRYPTO_LIBS)
if HAVE_MARIADB
libsf_broker_la_SOURCES += federation/brokerd/mariadb_store.cpp
libsf_broker_la_CPPFLAGS += $(MARIADB_CFLAGS)
libsf_broker_la_LIBADD += $(MARIADB_LIBS)
endif

sbin_PROGRAMS += spiderflow-brokerd
spiderflow_brokerd_SOURCES = \
	federation/brokerd/broker_api.cpp \
	federation/brokerd/broker_api.h \
	federation/brokerd/http_answer.h \
	federation/brokerd/xjob_routes.cpp \
	federation/brokerd/brokerd_main.cpp
spiderflow_brokerd_CPPFLAGS = $(AM_CPPFLAGS) $(HTTPLIB_CFLAGS)
spiderflow_brokerd_LDADD = libsf_broker.la libsf_coalloc.la libsf_site.la libsf_topology.la libsf_model.la libsf_util.la \
	$(HTTPLIB_LIBS) $(SQLITE_LIBS) $(MARIADB_LIBS) $(LIBCRYPTO_LIBS) $(HWLOC_LIBS) -lpthread

# The cluster agent's logic (Slurm look, part builder, diff, publisher) without main(), for the
# unit tests and, later, the sched plugin that hosts it in slurmctld.
noinst_LTLIBRARIES += libsf_agent.la
libsf_agent_la_SOURCES = \
	federation/agent/cluster_observation.h \
	federation/agent/part_builder.cpp \
	federation/agent/part_builder.h \
	federation/agent/part_diff.cpp \
	federation/agent/part_diff.h \
	federation/agent/agent_conf.cpp \
	federation/agent/agent_conf.h \
	federation/agent/agent.cpp \
	federation/agent/agent.h \
	federation/agent/agent_setup.cpp \
	federation/agent/agent_setup.h \
	federation/agent/slurm_observer.cpp \
	federation/agent/slurm_observer.h \
	federation/agent/part_runner.cpp \
	federation/agent/part_runner.h \
	federation/agent/home_jobs.cpp \
	federation/agent/home_jobs.h \
	federation/agent/slurm_hands.cpp \
	federation/agent/slurm_hands.h
libsf_agent_la_CPPFLAGS = $(AM_CPPFLAGS) $(SLURM_CPPFLAGS)

sbin_PROGRAMS += spiderflow-agent
spiderflow_agent_SOURCES = federation/agent/agent_main.cpp
spiderflow_agent_LDADD = libsf_agent.la libsf_coalloc.la libsf_broker_client.la libsf_slurmjob.la libspiderflow.la \
	$(CURL_LIBS) $(SLURM_LIBS)
