# Every subcommand parses its options and prints its --help through the one option table
# (common/util/cli_options, which the daemons and benchmarks use too).
bin_PROGRAMS += spiderflow
spiderflow_SOURCES = \
	tools/spiderflow/command.h \
	tools/spiderflow/main.cpp \
	tools/spiderflow/cmd_plan.cpp \
	tools/spiderflow/cmd_topo.cpp \
	tools/spiderflow/topo_check.h \
	tools/spiderflow/topo_check.cpp
spiderflow_LDADD = libspiderflow.la
# estimate command; its cost-model flags are shared with plan
spiderflow_SOURCES += tools/spiderflow/cmd_estimate.cpp tools/spiderflow/cost_flags.h tools/spiderflow/cost_flags.cpp

# coflow and simulate commands
spiderflow_SOURCES += tools/spiderflow/cmd_coflow.cpp tools/spiderflow/cmd_simulate.cpp
spiderflow_LDADD += libsf_fedsim.la

# launch command: the launch writer (services/launch); reads the site config through services/slurmjob.
spiderflow_SOURCES += tools/spiderflow/cmd_launch.cpp tools/spiderflow/cmd_job_plan.cpp \
	tools/spiderflow/job_plan_source.cpp tools/spiderflow/job_plan_source.h \
	tools/spiderflow/launch_hosts.cpp tools/spiderflow/launch_hosts.h
spiderflow_LDADD += libsf_start_barrier.la libsf_launch.la libsf_slurmjob.la libsf_launch_env.la libspiderflow.la $(SLURM_LIBS) $(HTTPLIB_LIBS) -lpthread

# catalog command: lists the built-in GPU and model catalogs.
spiderflow_SOURCES += tools/spiderflow/cmd_catalog.cpp

# query command: replays site-state scripts (golden tests in tests/golden/query/).
spiderflow_SOURCES += tools/spiderflow/cmd_query.cpp

# federation command and plan --broker: the live federation through the broker client.
spiderflow_SOURCES += tools/spiderflow/cmd_federation.cpp tools/spiderflow/cmd_jobs.cpp tools/spiderflow/federation_view.cpp \
	tools/spiderflow/federation_view.h tools/spiderflow/federation_report.cpp tools/spiderflow/federation_report.h
spiderflow_LDADD += libsf_broker_client.la libsf_broker_api.la libsf_coalloc.la libsf_probe.la libsf_util.la $(CURL_LIBS)

# probe command: measures a link with iperf3 (services/probe) and publishes it to the broker.
spiderflow_SOURCES += tools/spiderflow/cmd_probe.cpp
spiderflow_LDADD += libsf_probe.la libspiderflow.la

# doctor command: one site's setup checked end to end (doctor/: the facts it gathers, one file per
# check, the report). libslurm reads slurm.conf in a child process (doctor/libslurm_view.cpp).
DOCTOR_SOURCES = tools/spiderflow/doctor/checks.h tools/spiderflow/doctor/checks.cpp \
	tools/spiderflow/doctor/site_facts.h tools/spiderflow/doctor/site_facts.cpp \
	tools/spiderflow/doctor/plugin_file.h tools/spiderflow/doctor/plugin_file.cpp \
	tools/spiderflow/doctor/plugstack.h tools/spiderflow/doctor/plugstack.cpp \
	tools/spiderflow/doctor/check_slurm_conf.cpp tools/spiderflow/doctor/check_plugins.cpp \
	tools/spiderflow/doctor/check_plugstack.cpp tools/spiderflow/doctor/check_job_submit.cpp \
	tools/spiderflow/doctor/check_topology_plugin.cpp tools/spiderflow/doctor/check_spiderflow_conf.cpp \
	tools/spiderflow/doctor/check_topology.cpp tools/spiderflow/doctor/check_token.cpp \
	tools/spiderflow/doctor/check_broker.cpp tools/spiderflow/doctor/check_agent.cpp \
	tools/spiderflow/doctor/check_clock.cpp tools/spiderflow/doctor/check_job_requeue.cpp \
	tools/spiderflow/doctor/report.h tools/spiderflow/doctor/report.cpp
spiderflow_SOURCES += tools/spiderflow/cmd_doctor.cpp $(DOCTOR_SOURCES) \
	tools/spiderflow/doctor/gather_site.h tools/spiderflow/doctor/gather_site.cpp \
	tools/spiderflow/doctor/libslurm_view.h tools/spiderflow/doctor/libslurm_view.cpp
spiderflow_LDADD += libsf_agent.la libsf_broker_client.la libsf_util.la $(CURL_LIBS) $(SLURM_LIBS)
