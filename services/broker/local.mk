# The broker's state and store: the federation's view, cross-site jobs, tokens, the lease, SQLite
# and MariaDB. Used by spiderflow-brokerd (federation/brokerd), its unit tests and bench.
noinst_LTLIBRARIES += libsf_broker.la
libsf_broker_la_SOURCES = \
	services/broker/federation_state.cpp \
	services/broker/federation_state.h \
	services/broker/broker_store.h \
	services/broker/sqlite_store.cpp \
	services/broker/store_backends.h \
	services/broker/store_location.cpp \
	services/broker/lease_keeper.cpp \
	services/broker/lease_keeper.h \
	services/broker/cross_site_jobs.cpp \
	services/broker/cross_site_jobs.h \
	services/broker/brokerd_conf.cpp \
	services/broker/brokerd_conf.h \
	services/broker/tokens.cpp \
	services/broker/tokens.h \
	services/broker/federation_figures.cpp \
	services/broker/federation_figures.h \
	services/broker/metrics.cpp \
	services/broker/metrics.h \
	services/broker/rate_limit.cpp \
	services/broker/rate_limit.h \
	services/broker/probe_board.cpp \
	services/broker/probe_board.h \
	services/broker/group_commit.cpp \
	services/broker/group_commit.h \
	services/broker/serialized_store.h
libsf_broker_la_CPPFLAGS = $(AM_CPPFLAGS) $(SQLITE_CFLAGS) $(LIBCRYPTO_CFLAGS) -include config.h
libsf_broker_la_LIBADD = $(SQLITE_LIBS) $(LIBCRYPTO_LIBS)
if HAVE_MARIADB
libsf_broker_la_SOURCES += services/broker/mariadb_store.cpp
libsf_broker_la_CPPFLAGS += $(MARIADB_CFLAGS)
libsf_broker_la_LIBADD += $(MARIADB_LIBS)
endif


# Planning a requeued cross-site job anew: the only part of the broker that needs the planner.
noinst_LTLIBRARIES += libsf_replan.la
libsf_replan_la_SOURCES = \
	services/broker/replan.cpp \
	services/broker/replan.h

# The broker's HTML status page: its own library since it draws plans (the plan writers).
noinst_LTLIBRARIES += libsf_status_page.la
libsf_status_page_la_SOURCES = \
	services/broker/status_page.cpp \
	services/broker/status_page.h
