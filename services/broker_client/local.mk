# The broker's libcurl client (the services level): the agent, the `spiderflow` command and tests use it.
noinst_LTLIBRARIES += libsf_broker_client.la
libsf_broker_client_la_SOURCES = \
	services/broker_client/broker_client.cpp \
	services/broker_client/broker_client.h
libsf_broker_client_la_CPPFLAGS = $(AM_CPPFLAGS) $(CURL_CFLAGS)

# The bodies of the broker's /v1 routes, read and written once: brokerd's routes, the agent and
# the `spiderflow` command use them. No libcurl: brokerd links it without the client.
noinst_LTLIBRARIES += libsf_broker_api.la
libsf_broker_api_la_SOURCES = \
	services/broker_client/broker_api_types.cpp \
	services/broker_client/broker_api_types.h
libsf_broker_api_la_CPPFLAGS = $(AM_CPPFLAGS) $(JSON_CFLAGS)
