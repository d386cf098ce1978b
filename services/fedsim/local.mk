# The federation simulator (layer 5: a library face of `spiderflow simulate` and bench/): job
# traces and their generator, placement policies over a SiteState, WAN sharing from the coflow
# simulator, the discrete-event loop and its reports.
noinst_LTLIBRARIES += libsf_fedsim.la
libsf_fedsim_la_SOURCES = \
	common/fedsim/job_trace.h \
	common/fedsim/job_trace.cpp \
	common/fedsim/helios_trace.h \
	common/fedsim/helios_trace.cpp \
	common/fedsim/placement.h \
	common/fedsim/placement.cpp \
	common/fedsim/wan_sharing.h \
	common/fedsim/wan_sharing.cpp \
	common/fedsim/fed_simulator.h \
	common/fedsim/fed_simulator.cpp \
	common/fedsim/run_summary.h \
	common/fedsim/run_summary.cpp
