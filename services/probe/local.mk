# Link measurements with iperf3 (the services level): `spiderflow probe` uses it.
noinst_LTLIBRARIES += libsf_probe.la
libsf_probe_la_SOURCES = \
	services/probe/link_probe.cpp \
	services/probe/link_probe.h \
	services/probe/link_health.cpp \
	services/probe/link_health.h \
	services/probe/probe_protocol.cpp \
	services/probe/probe_protocol.h
libsf_probe_la_CPPFLAGS = $(AM_CPPFLAGS) $(JSON_CFLAGS)
