noinst_LTLIBRARIES += libsf_cost.la
libsf_cost_la_SOURCES = \
	common/cost/comm.cpp \
	common/cost/comm.h \
	common/cost/wan_shares.cpp \
	common/cost/wan_shares.h \
	common/cost/fabric_shares.cpp \
	common/cost/fabric_shares.h \
	common/cost/cost_model.cpp \
	common/cost/cost_model.h \
	common/cost/cost_parts.h \
	common/cost/cost_check.cpp \
	common/cost/cost_compute.cpp \
	common/cost/cost_links.cpp \
	common/cost/cost_links.h \
	common/cost/cost_pipeline.cpp \
	common/cost/cost_data_parallel.cpp \
	common/cost/cost_diloco.cpp \
	common/cost/cost_optimizer.cpp \
	common/cost/cost_memory.cpp \
	common/cost/flops.cpp \
	common/cost/flops.h \
	common/cost/gemm_efficiency.cpp \
	common/cost/gemm_efficiency.h \
	common/cost/memory.cpp \
	common/cost/memory.h
