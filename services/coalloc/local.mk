# Co-allocation of cross-site jobs (layer 5: a library face the broker and the simulator share;
# plain data and decisions, no I/O).
noinst_LTLIBRARIES += libsf_coalloc.la
libsf_coalloc_la_SOURCES = \
	common/coalloc/xjob.h \
	common/coalloc/xjob.cpp \
	common/coalloc/coallocator.h \
	common/coalloc/coallocator.cpp \
	common/coalloc/xjob_json.h \
	common/coalloc/xjob_json.cpp
