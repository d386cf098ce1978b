# The start barrier of a cross-site job's parts (an HTTP long-poll between their launchers, on
# cpp-httplib): `spiderflow launch` meets it before its ranks start.
noinst_LTLIBRARIES += libsf_start_barrier.la
libsf_start_barrier_la_SOURCES = \
	services/start_barrier/start_barrier.h \
	services/start_barrier/start_barrier.cpp
libsf_start_barrier_la_CPPFLAGS = $(AM_CPPFLAGS) $(HTTPLIB_CFLAGS)
