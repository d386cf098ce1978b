bin_PROGRAMS += spiderflow
spiderflow_SOURCES = \
	tools/spiderflow/command.h \
	tools/spiderflow/main.cpp
spiderflow_LDADD = libspiderflow.la
