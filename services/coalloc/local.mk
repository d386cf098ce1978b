# Co-allocation of cross-site jobs (layer 5: a library face the broker and the simulator share;
# plain data and decisions, no I/O).
noinst_LTLIBRARIES += libsf_coalloc.la
libsf_coalloc_la_SOURCES = \
	services/coalloc/xjob.h \
	services/coalloc/xjob.cpp \
	services/coalloc/coallocator.h \
	services/coalloc/coallocator.cpp \
	services/coalloc/xjob_json.h \
	services/coalloc/xjob_json.cpp \
	services/coalloc/stand_in_cluster.h \
	services/coalloc/stand_in_cluster.cpp
