noinst_LTLIBRARIES += libsf_coflow.la
libsf_coflow_la_SOURCES = \
	common/coflow/allocation.cpp \
	common/coflow/allocation.h \
	common/coflow/allocation_reference.cpp \
	common/coflow/coflow.cpp \
	common/coflow/coflow.h \
	common/coflow/command_runner.cpp \
	common/coflow/command_runner.h \
	common/coflow/hermod_order.cpp \
	common/coflow/hermod_order.h \
	common/coflow/llm_traffic.cpp \
	common/coflow/llm_traffic.h \
	common/coflow/matching_order.cpp \
	common/coflow/matching_order.h \
	common/coflow/network.cpp \
	common/coflow/network.h \
	common/coflow/network_topology.cpp \
	common/coflow/sched_aalo.cpp \
	common/coflow/sched_fair.cpp \
	common/coflow/sched_hermod.cpp \
	common/coflow/sched_llm.cpp \
	common/coflow/sched_sincronia.cpp \
	common/coflow/sched_varys.cpp \
	common/coflow/scheduler.cpp \
	common/coflow/scheduler.h \
	common/coflow/schedulers.h \
	common/coflow/simulator.cpp \
	common/coflow/simulator.h \
	common/coflow/tc_state.cpp \
	common/coflow/tc_state.h \
	common/coflow/trace.h \
	common/coflow/traffic_class.cpp \
	common/coflow/traffic_class.h \
	common/coflow/trace_gen.cpp \
	common/coflow/trace_reader.cpp
