noinst_LTLIBRARIES += libsf_topology.la
libsf_topology_la_SOURCES = \
	libspiderflow/topology/topology.h \
	libspiderflow/topology/topology.cpp \
	libspiderflow/topology/fastest_paths.cpp \
	libspiderflow/topology/reader.h \
	libspiderflow/topology/readers.h \
	libspiderflow/topology/reader_factory.cpp \
	libspiderflow/topology/spiderflow_reader.h \
	libspiderflow/topology/spiderflow_reader.cpp \
	libspiderflow/topology/topology_json.h \
	libspiderflow/topology/topology_json.cpp \
	libspiderflow/topology/generator.h \
	libspiderflow/topology/generator.cpp \
	libspiderflow/topology/slurm_conf.h \
	libspiderflow/topology/slurm_conf.cpp \
	libspiderflow/topology/hostlist.cpp \
	libspiderflow/topology/gpu_alias.h \
	libspiderflow/topology/gpu_alias.cpp \
	libspiderflow/topology/slurm_reader.h \
	libspiderflow/topology/slurm_reader.cpp \
	libspiderflow/topology/hwloc_reader.h \
	libspiderflow/topology/hwloc_reader.cpp \
	libspiderflow/topology/checks.h \
	libspiderflow/topology/checks_tree.h \
	libspiderflow/topology/checks_tree.cpp \
	libspiderflow/topology/checks_site.cpp \
	libspiderflow/topology/checks_topology.cpp
# hwloc_reader.cpp needs hwloc's headers; the library comes in through libspiderflow_la_LIBADD.
libsf_topology_la_CPPFLAGS = $(AM_CPPFLAGS) $(HWLOC_CFLAGS)
libsf_topology_la_LIBADD = $(HWLOC_LIBS)
