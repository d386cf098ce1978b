# federation: the daemons' mains, spiderflow-brokerd (HTTP API) and spiderflow-agent; their logic
# is in services/broker and services/agent.

# The broker's routes (BrokerService) apart from its main, so that the route fuzzer
# (tests/fuzz/fuzz_broker_http.cpp) drives the very code brokerd serves.
noinst_LTLIBRARIES += libsf_brokerd_routes.la
libsf_brokerd_routes_la_SOURCES = \
	federation/brokerd/broker_api.cpp \
	federation/brokerd/broker_api.h \
	federation/brokerd/http_answer.h \
	federation/brokerd/xjob_routes.cpp \
	federation/brokerd/probe_routes.cpp \
	federation/brokerd/status_routes.cpp
libsf_brokerd_routes_la_CPPFLAGS = $(AM_CPPFLAGS) $(HTTPLIB_CFLAGS)

sbin_PROGRAMS += spiderflow-brokerd
spiderflow_brokerd_SOURCES = federation/brokerd/brokerd_main.cpp
spiderflow_brokerd_CPPFLAGS = $(AM_CPPFLAGS) $(HTTPLIB_CFLAGS)
spiderflow_brokerd_LDADD = libsf_brokerd_routes.la libsf_broker_api.la libsf_broker.la libsf_status_page.la libsf_probe.la libsf_replan.la libsf_submit.la libsf_slurmjob.la libsf_launch_env.la libsf_coalloc.la libspiderflow.la \
	$(HTTPLIB_LIBS) $(SQLITE_LIBS) $(MARIADB_LIBS) $(LIBCRYPTO_LIBS) $(HWLOC_LIBS) -lpthread

sbin_PROGRAMS += spiderflow-agent
spiderflow_agent_SOURCES = federation/agent/agent_main.cpp
spiderflow_agent_LDADD = libsf_agent.la libsf_broker_api.la libsf_probe.la libsf_coalloc.la libsf_broker_client.la libsf_slurmjob.la libsf_launch_env.la libspiderflow.la \
	$(CURL_LIBS) $(SLURM_LIBS)
