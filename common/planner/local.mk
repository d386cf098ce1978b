noinst_LTLIBRARIES += libsf_planner.la
libsf_planner_la_SOURCES = \
	common/planner/placeholder.cpp
