noinst_LTLIBRARIES += libsf_milp.la
libsf_milp_la_SOURCES = \
	common/milp/model.h \
	common/milp/model.cpp \
	common/milp/cbc_backend.h \
	common/milp/cbc_backend.cpp
libsf_milp_la_CPPFLAGS = $(AM_CPPFLAGS) $(CBC_CFLAGS)
libsf_milp_la_LIBADD = $(CBC_LIBS)
