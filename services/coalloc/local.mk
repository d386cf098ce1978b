# Co-allocation of cross-site jobs (a service: a library face the broker and the simulator share;
# plain data and decisions, no I/O).
noinst_LTLIBRARIES += libsf_coalloc.la
libsf_coalloc_la_SOURCES = \
	services/coalloc/xjob.h \
	services/coalloc/xjob.cpp \
	services/coalloc/coallocator.h \
	services/coalloc/coallocator.cpp \
	services/coalloc/coallocator_stages.cpp \
	services/coalloc/coallocator_reports.cpp \
	services/coalloc/coallocator_timers.cpp \
	services/coalloc/coallocator_requeue.cpp \
	services/coalloc/coallocator_orders.cpp \
	services/coalloc/order_report_names.cpp \
	services/coalloc/end_causes.h \
	services/coalloc/end_causes.cpp \
	services/coalloc/run_words.h \
	services/coalloc/run_words.cpp \
	services/coalloc/xjob_json.h \
	services/coalloc/xjob_json.cpp \
	services/coalloc/stand_in_cluster.h \
	services/coalloc/stand_in_cluster.cpp
