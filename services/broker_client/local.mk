# The broker's libcurl client (the services level): the agent, the `spiderflow` command and tests use it.
noinst_LTLIBRARIES += libsf_broker_client.la
libsf_broker_client_la_SOURCES = \
	services/broker_client/broker_client.cpp \
	services/broker_client/broker_client.h
libsf_broker_client_la_CPPFLAGS = $(AM_CPPFLAGS) $(CURL_CFLAGS)
