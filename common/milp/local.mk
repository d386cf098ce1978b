noinst_LTLIBRARIES += libsf_milp.la
libsf_milp_la_SOURCES = \
	common/milp/placeholder.cpp
