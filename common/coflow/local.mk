noinst_LTLIBRARIES += libsf_coflow.la
libsf_coflow_la_SOURCES = \
	common/coflow/placeholder.cpp
