noinst_LTLIBRARIES += libsf_milp.la
libsf_milp_la_SOURCES = \
	libspiderflow/milp/model.h \
	libspiderflow/milp/model.cpp \
	libspiderflow/milp/cbc_backend.h \
	libspiderflow/milp/cbc_backend.cpp
libsf_milp_la_CPPFLAGS = $(AM_CPPFLAGS) $(CBC_CFLAGS)
libsf_milp_la_LIBADD = $(CBC_LIBS)
