# The federation simulator (a service: a library face of `spiderflow simulate` and bench/): job
# traces and their generator, placement policies over a SiteState, WAN sharing from the coflow
# simulator, the discrete-event loop and its reports.
noinst_LTLIBRARIES += libsf_fedsim.la
libsf_fedsim_la_SOURCES = \
	services/fedsim/job_trace.h \
	services/fedsim/job_trace.cpp \
	services/fedsim/helios_trace.h \
	services/fedsim/helios_trace.cpp \
	services/fedsim/placement.h \
	services/fedsim/placement.cpp \
	services/fedsim/wan_sharing.h \
	services/fedsim/wan_sharing.cpp \
	services/fedsim/fed_simulator.h \
	services/fedsim/fed_simulator.cpp \
	services/fedsim/run_summary.h \
	services/fedsim/measurement_window.h \
	services/fedsim/run_summary.cpp
