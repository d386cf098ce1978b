noinst_LTLIBRARIES += libsf_coflow.la
libsf_coflow_la_SOURCES = \
	libspiderflow/coflow/allocation.cpp \
	libspiderflow/coflow/allocation.h \
	libspiderflow/coflow/allocation_reference.cpp \
	libspiderflow/coflow/coflow.cpp \
	libspiderflow/coflow/coflow.h \
	libspiderflow/coflow/command_runner.cpp \
	libspiderflow/coflow/command_runner.h \
	libspiderflow/coflow/hermod_order.cpp \
	libspiderflow/coflow/hermod_order.h \
	libspiderflow/coflow/llm_traffic.cpp \
	libspiderflow/coflow/llm_traffic.h \
	libspiderflow/coflow/matching_order.cpp \
	libspiderflow/coflow/matching_order.h \
	libspiderflow/coflow/network.cpp \
	libspiderflow/coflow/network.h \
	libspiderflow/coflow/network_topology.cpp \
	libspiderflow/coflow/sched_aalo.cpp \
	libspiderflow/coflow/sched_fair.cpp \
	libspiderflow/coflow/sched_hermod.cpp \
	libspiderflow/coflow/sched_llm.cpp \
	libspiderflow/coflow/sched_sincronia.cpp \
	libspiderflow/coflow/sched_varys.cpp \
	libspiderflow/coflow/scheduler.cpp \
	libspiderflow/coflow/scheduler.h \
	libspiderflow/coflow/schedulers.h \
	libspiderflow/coflow/simulator.cpp \
	libspiderflow/coflow/simulator.h \
	libspiderflow/coflow/tc_state.cpp \
	libspiderflow/coflow/tc_state.h \
	libspiderflow/coflow/trace.h \
	libspiderflow/coflow/traffic_class.cpp \
	libspiderflow/coflow/traffic_class.h \
	libspiderflow/coflow/trace_gen.cpp \
	libspiderflow/coflow/trace_reader.cpp
