bin_PROGRAMS += spiderflow
spiderflow_SOURCES = \
	tools/spiderflow/command.h \
	tools/spiderflow/main.cpp \
	tools/spiderflow/cmd_plan.cpp
spiderflow_LDADD = libspiderflow.la
# estimate command (owner: cost)
spiderflow_SOURCES += tools/spiderflow/cmd_estimate.cpp
