noinst_LTLIBRARIES += libsf_cost.la
libsf_cost_la_SOURCES = \
	libspiderflow/cost/comm.cpp \
	libspiderflow/cost/comm.h \
	libspiderflow/cost/wan_shares.cpp \
	libspiderflow/cost/wan_shares.h \
	libspiderflow/cost/fabric_shares.cpp \
	libspiderflow/cost/fabric_shares.h \
	libspiderflow/cost/cost_model.cpp \
	libspiderflow/cost/cost_model.h \
	libspiderflow/cost/cost_options.cpp \
	libspiderflow/cost/cost_parts.h \
	libspiderflow/cost/cost_check.cpp \
	libspiderflow/cost/cost_compute.cpp \
	libspiderflow/cost/cost_links.cpp \
	libspiderflow/cost/cost_links.h \
	libspiderflow/cost/cost_pipeline.cpp \
	libspiderflow/cost/cost_data_parallel.cpp \
	libspiderflow/cost/cost_diloco.cpp \
	libspiderflow/cost/cost_optimizer.cpp \
	libspiderflow/cost/cost_memory.cpp \
	libspiderflow/cost/flops.cpp \
	libspiderflow/cost/flops.h \
	libspiderflow/cost/gemm_efficiency.cpp \
	libspiderflow/cost/gemm_efficiency.h \
	libspiderflow/cost/memory.cpp \
	libspiderflow/cost/memory.h
