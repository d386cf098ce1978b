noinst_LTLIBRARIES += libsf_model.la
libsf_model_la_SOURCES = \
	common/model/placeholder.cpp
