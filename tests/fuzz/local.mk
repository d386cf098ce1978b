# Fuzz targets (see tests/fuzz/README.md). Each tests/fuzz/fuzz_<name>.cpp defines
# LLVMFuzzerTestOneInput and has a seed corpus in tests/fuzz/corpus/<name>/. `make check` links
# each with replay_main.cpp (no libFuzzer) into tests/fuzz/replay_<name> and runs it over the
# corpus; tests/fuzz/run-fuzzers.sh builds the real libFuzzer binaries with clang.
#
# To add a target, append one line here (a plain name: automake must see the list literally to
# write each test's log rule):
FUZZ_REPLAYS =
FUZZ_REPLAYS += tests/fuzz/replay_slurm_conf
FUZZ_REPLAYS += tests/fuzz/replay_hwloc_xml
FUZZ_REPLAYS += tests/fuzz/replay_catalog
FUZZ_REPLAYS += tests/fuzz/replay_job_spec
FUZZ_REPLAYS += tests/fuzz/replay_topology_json
FUZZ_REPLAYS += tests/fuzz/replay_plan_content
FUZZ_REPLAYS += tests/fuzz/replay_broker_answers
FUZZ_REPLAYS += tests/fuzz/replay_broker_http

# A target that needs more than libspiderflow.la names its libraries (FUZZ_LTLIBS_<name>, built
# here; FUZZ_LIBS_<name>, the system's) and compiler flags (FUZZ_CPPFLAGS_<name>).
FUZZ_LTLIBS_broker_answers = libsf_broker_api.la libsf_probe.la libsf_coalloc.la
FUZZ_LTLIBS_broker_http = libsf_brokerd_routes.la libsf_broker_api.la libsf_broker.la libsf_status_page.la libsf_probe.la libsf_replan.la \
	libsf_submit.la libsf_slurmjob.la libsf_launch_env.la libsf_coalloc.la
FUZZ_LIBS_broker_http = $(HTTPLIB_LIBS) $(SQLITE_LIBS) $(MARIADB_LIBS) $(LIBCRYPTO_LIBS) -lpthread
FUZZ_CPPFLAGS_broker_http = $(HTTPLIB_CFLAGS)
tests/fuzz/replay_broker_answers: $(FUZZ_LTLIBS_broker_answers)
tests/fuzz/replay_broker_http: $(FUZZ_LTLIBS_broker_http)

check_SCRIPTS += $(FUZZ_REPLAYS)
TESTS += $(FUZZ_REPLAYS)
CLEANFILES += $(FUZZ_REPLAYS) $(FUZZ_REPLAYS:tests/fuzz/replay_%=tests/fuzz/fuzz_%.$(OBJEXT)) tests/fuzz/replay_main.$(OBJEXT)
EXTRA_DIST += tests/fuzz/README.md tests/fuzz/replay_main.cpp tests/fuzz/run-fuzzers.sh tests/fuzz/lsan.supp tests/fuzz/corpus \
	$(FUZZ_REPLAYS:tests/fuzz/replay_%=tests/fuzz/fuzz_%.cpp)

# Plain rules rather than automake programs, so a target needs no _SOURCES/_LDADD lines of its own.
FUZZ_CPPFLAGS = $(DEFS) $(DEFAULT_INCLUDES) $(AM_CPPFLAGS) $(CPPFLAGS) $(HWLOC_CFLAGS)
tests/fuzz/replay_main.$(OBJEXT): $(srcdir)/tests/fuzz/replay_main.cpp
	@$(MKDIR_P) tests/fuzz
	$(AM_V_CXX)$(CXX) $(FUZZ_CPPFLAGS) $(AM_CXXFLAGS) $(CXXFLAGS) -c -o $@ $(srcdir)/tests/fuzz/replay_main.cpp
tests/fuzz/fuzz_%.$(OBJEXT): $(srcdir)/tests/fuzz/fuzz_%.cpp
	@$(MKDIR_P) tests/fuzz
	$(AM_V_CXX)$(CXX) $(FUZZ_CPPFLAGS) $(FUZZ_CPPFLAGS_$*) $(AM_CXXFLAGS) $(CXXFLAGS) -c -o $@ $<
tests/fuzz/replay_%: tests/fuzz/fuzz_%.$(OBJEXT) tests/fuzz/replay_main.$(OBJEXT) libspiderflow.la
	$(AM_V_CXXLD)$(LIBTOOL) $(AM_V_lt) --tag=CXX $(AM_LIBTOOLFLAGS) $(LIBTOOLFLAGS) --mode=link $(CXXLD) \
	  $(AM_CXXFLAGS) $(CXXFLAGS) $(AM_LDFLAGS) $(LDFLAGS) -o $@ $< tests/fuzz/replay_main.$(OBJEXT) \
	  $(FUZZ_LTLIBS_$*) libspiderflow.la $(FUZZ_LIBS_$*) $(LIBS)
