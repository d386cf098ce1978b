noinst_LTLIBRARIES += libsf_topology.la
libsf_topology_la_SOURCES = \
	common/topology/topology.h \
	common/topology/topology.cpp \
	common/topology/fastest_paths.cpp \
	common/topology/reader.h \
	common/topology/readers.h \
	common/topology/reader_factory.cpp \
	common/topology/spiderflow_reader.h \
	common/topology/spiderflow_reader.cpp \
	common/topology/topology_json.h \
	common/topology/topology_json.cpp \
	common/topology/generator.h \
	common/topology/generator.cpp \
	common/topology/generator_decentralized.cpp \
	common/topology/generator_draw.h \
	common/topology/dtfm_regions.h \
	common/topology/dtfm_regions.cpp \
	common/topology/slurm_conf.h \
	common/topology/slurm_conf.cpp \
	common/topology/hostlist.cpp \
	common/topology/gpu_alias.h \
	common/topology/gpu_alias.cpp \
	common/topology/slurm_reader.h \
	common/topology/slurm_reader.cpp \
	common/topology/hwloc_reader.h \
	common/topology/hwloc_reader.cpp \
	common/topology/checks.h \
	common/topology/checks_tree.h \
	common/topology/checks_tree.cpp \
	common/topology/checks_site.cpp \
	common/topology/checks_slurm_compare.cpp \
	common/topology/checks_topology.cpp
# hwloc_reader.cpp needs hwloc's headers; the library comes in through libspiderflow_la_LIBADD.
libsf_topology_la_CPPFLAGS = $(AM_CPPFLAGS) $(HWLOC_CFLAGS)
libsf_topology_la_LIBADD = $(HWLOC_LIBS)
