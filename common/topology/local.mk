noinst_LTLIBRARIES += libsf_topology.la
libsf_topology_la_SOURCES = \
	common/topology/placeholder.cpp
