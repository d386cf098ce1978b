noinst_LTLIBRARIES += libsf_cost.la
libsf_cost_la_SOURCES = \
	common/cost/placeholder.cpp
