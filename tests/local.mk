# Unit tests: one GoogleTest binary per component, listed by each component below.

# util: the one JSON field reader, the one whole-file reader, numbers from text
check_PROGRAMS += tests/unit/test_util
TESTS += tests/unit/test_util
tests_unit_test_util_SOURCES = tests/unit/common/util/test_json_read.cpp tests/unit/common/util/test_text_file.cpp \
	tests/unit/common/util/test_metrics_text.cpp \
	tests/unit/common/util/test_parse_number.cpp
tests_unit_test_util_CXXFLAGS = $(TEST_CXXFLAGS)
tests_unit_test_util_LDADD = libsf_util.la $(GTEST_LIBS_ALL)

# milp
check_PROGRAMS += tests/unit/test_milp
TESTS += tests/unit/test_milp
tests_unit_test_milp_SOURCES = tests/unit/common/milp/test_milp.cpp
tests_unit_test_milp_CXXFLAGS = $(TEST_CXXFLAGS)
tests_unit_test_milp_LDADD = libsf_milp.la libsf_util.la $(CBC_LIBS) $(GTEST_LIBS_ALL)

# plan writers
check_PROGRAMS += tests/unit/test_plan
TESTS += tests/unit/test_plan
tests_unit_test_plan_SOURCES = tests/unit/common/small_model.h tests/unit/common/plan/plan_fixture.h tests/unit/common/plan/test_plan_json.cpp \
	tests/unit/common/plan/test_plan_writers.cpp tests/unit/common/plan/test_plan_parts.cpp tests/unit/common/plan/test_nccl_env.cpp \
	tests/unit/common/plan/test_plan_validate.cpp tests/unit/common/plan/test_sequential_layout.cpp tests/unit/common/plan/test_diloco_plan.cpp \
	tests/unit/common/plan/test_layout_file.cpp
tests_unit_test_plan_CXXFLAGS = $(TEST_CXXFLAGS)
tests_unit_test_plan_LDADD = libsf_plan.la libsf_topology.la libsf_model.la libsf_util.la $(GTEST_LIBS_ALL)

# slurmjob: site config, job options, rank order, traffic classes, the submit decision and its
# parts (decision cache, request reconciliation, cross-site shaping, the planner's budget)
check_PROGRAMS += tests/unit/test_slurmjob
TESTS += tests/unit/test_slurmjob
tests_unit_test_slurmjob_SOURCES = tests/unit/services/slurmjob/test_spiderflow_conf.cpp tests/unit/services/slurmjob/test_job_options.cpp \
	tests/unit/services/slurmjob/test_rank_order.cpp tests/unit/services/slurmjob/test_submit_planner.cpp \
	tests/unit/services/slurmjob/test_part_comment.cpp tests/unit/services/slurmjob/test_request_shape.cpp \
	tests/unit/services/slurmjob/test_job_traffic.cpp tests/unit/services/slurmjob/test_coflow_levels.cpp \
	tests/unit/services/slurmjob/test_job_request.cpp tests/unit/services/slurmjob/summary_fixture.h tests/unit/services/slurmjob/test_plan_summary.cpp \
	tests/unit/common/plan/plan_fixture.h tests/unit/services/slurmjob/submit_fixture.h tests/unit/services/slurmjob/test_decision_cache.cpp \
	tests/unit/services/slurmjob/test_request_reconcile.cpp tests/unit/services/slurmjob/test_cross_site_shape.cpp \
	tests/unit/services/slurmjob/test_planner_budget.cpp tests/unit/services/slurmjob/carried_summary.h
tests_unit_test_slurmjob_CXXFLAGS = $(TEST_CXXFLAGS)
tests_unit_test_slurmjob_LDADD = libsf_submit.la libsf_launch.la libsf_slurmjob.la libsf_launch_env.la libspiderflow.la $(GTEST_LIBS_ALL)

# launch: the launch contract's variables and the launch writer (services/launch)
check_PROGRAMS += tests/unit/test_launch
TESTS += tests/unit/test_launch
tests_unit_test_launch_SOURCES = tests/unit/services/launch/test_launch_env.cpp tests/unit/services/launch/test_launch_writer.cpp \
	tests/unit/services/launch/test_launch_diloco.cpp tests/unit/common/plan/plan_fixture.h tests/unit/common/small_model.h
tests_unit_test_launch_CXXFLAGS = $(TEST_CXXFLAGS)
tests_unit_test_launch_LDADD = libsf_launch.la libsf_launch_env.la libspiderflow.la $(GTEST_LIBS_ALL)

# plugins: the built .so files' symbols and linked libraries
check_PROGRAMS += tests/unit/test_plugins
TESTS += tests/unit/test_plugins
tests_unit_test_plugins_SOURCES = tests/unit/plugins/test_plugin_symbols.cpp
tests_unit_test_plugins_CXXFLAGS = $(TEST_CXXFLAGS)
tests_unit_test_plugins_LDADD = $(GTEST_LIBS_ALL)

# job_submit's edits of Slurm's job_desc_msg_t (public slurm.h), the host's calls faked
check_PROGRAMS += tests/unit/test_job_desc_edit
TESTS += tests/unit/test_job_desc_edit
tests_unit_test_job_desc_edit_SOURCES = tests/unit/plugins/job_submit/test_job_desc_edit.cpp tests/unit/plugins/fake_slurm_host.cpp \
	plugins/job_submit/job_desc_edit.cpp plugins/job_submit/job_desc_edit.h
tests_unit_test_job_desc_edit_CXXFLAGS = $(TEST_CXXFLAGS)
tests_unit_test_job_desc_edit_LDADD = libsf_slurmjob.la libsf_launch_env.la libspiderflow.la $(GTEST_LIBS_ALL)

# The SPANK plugin's plugstack.conf arguments and spiderflow.conf, the host's calls faked
check_PROGRAMS += tests/unit/test_spank_config
TESTS += tests/unit/test_spank_config
tests_unit_test_spank_config_SOURCES = tests/unit/plugins/spank/test_spank_config.cpp tests/unit/plugins/fake_slurm_host.cpp \
	plugins/spank/config.cpp plugins/spank/spank_state.h
tests_unit_test_spank_config_CXXFLAGS = $(TEST_CXXFLAGS)
tests_unit_test_spank_config_LDADD = libsf_slurmjob_client.la libsf_util.la $(GTEST_LIBS_ALL)

if HAVE_SLURM_SOURCE
# select/spiderflow_cons_tres's node choice on node, gres and switch records as slurmctld holds
# them: compiled as the plugin is (Slurm's internal headers, plugins/local.mk); the test plays
# slurmctld, the public libslurm gives the list and bitmap calls.
check_PROGRAMS += tests/unit/test_plan_placement
TESTS += tests/unit/test_plan_placement
tests_unit_test_plan_placement_SOURCES = tests/unit/plugins/select/test_plan_placement.cpp \
	plugins/select/plan_placement.cpp plugins/select/plan_placement.h plugins/select/client_globals.cpp
tests_unit_test_plan_placement_CPPFLAGS = $(SLURM_INTERNAL_CPPFLAGS) $(SLURM_CPPFLAGS)
tests_unit_test_plan_placement_CXXFLAGS = $(TEST_CXXFLAGS)
tests_unit_test_plan_placement_LDADD = libsf_slurmjob.la libsf_site.la libsf_topology.la libsf_util.la $(HWLOC_LIBS) \
	$(ZLIB_LIBS) $(SLURM_LIBS) $(GTEST_LIBS_ALL)

# sched/spiderflow's coflow levels on job records as slurmctld holds them, compiled as the
# plugin is; the test plays slurmctld's job list, locks and job lookup.
check_PROGRAMS += tests/unit/test_coflow_priorities
TESTS += tests/unit/test_coflow_priorities
tests_unit_test_coflow_priorities_SOURCES = tests/unit/plugins/sched/test_coflow_priorities.cpp \
	tests/unit/services/slurmjob/carried_summary.h tests/unit/common/planner/fixtures.h \
	plugins/sched/coflow_priorities.cpp plugins/sched/coflow_priorities.h
tests_unit_test_coflow_priorities_CPPFLAGS = $(SLURM_INTERNAL_CPPFLAGS) $(SLURM_CPPFLAGS)
tests_unit_test_coflow_priorities_CXXFLAGS = $(TEST_CXXFLAGS)
tests_unit_test_coflow_priorities_LDADD = libsf_slurmjob.la libspiderflow.la $(SLURM_LIBS) $(GTEST_LIBS_ALL)
endif

# coflow model, schedulers, simulator, traces
check_PROGRAMS += tests/unit/test_coflow
TESTS += tests/unit/test_coflow
tests_unit_test_coflow_SOURCES = tests/unit/common/coflow/coflow_fixture.h tests/unit/common/coflow/test_schedulers.cpp \
	tests/unit/common/coflow/test_simulator.cpp tests/unit/common/coflow/test_trace.cpp tests/unit/common/coflow/test_llm_traffic.cpp \
	tests/unit/common/coflow/test_traffic_class.cpp tests/unit/common/coflow/test_network.cpp tests/unit/common/coflow/test_tc_state.cpp tests/unit/common/coflow/test_fidelity.cpp \
	tests/unit/common/coflow/test_allocation_equivalence.cpp tests/unit/common/coflow/test_matching_order.cpp \
	tests/unit/common/coflow/test_route_rule.cpp
tests_unit_test_coflow_CXXFLAGS = $(TEST_CXXFLAGS)
tests_unit_test_coflow_LDADD = libsf_coflow.la libsf_cost.la libsf_plan.la libsf_topology.la libsf_model.la libsf_util.la $(GTEST_LIBS_ALL)
# Enforcement in network namespaces (root, iproute2, iperf3; skips with 77 otherwise).
TESTS += tests/integration/netns_tc_test.sh
# ... and the SPANK job prolog/epilog's code path through this driver.
check_PROGRAMS += tests/integration/job_tc_driver
tests_integration_job_tc_driver_SOURCES = tests/integration/job_tc_driver.cpp
tests_integration_job_tc_driver_CXXFLAGS = $(TEST_CXXFLAGS)
tests_integration_job_tc_driver_LDADD = libsf_slurmjob.la libsf_launch_env.la libspiderflow.la
EXTRA_DIST += tests/integration/netns_tc_test.sh

# planner
check_PROGRAMS += tests/unit/test_planner
TESTS += tests/unit/test_planner
tests_unit_test_planner_SOURCES = tests/unit/common/planner/fixtures.h tests/unit/common/planner/test_tpa.cpp \
	tests/unit/common/planner/test_fan_out.cpp \
	tests/unit/common/planner/test_spinsearch.cpp tests/unit/common/planner/test_plan_job.cpp tests/unit/common/planner/test_deadline_planning.cpp \
	tests/unit/common/planner/test_request_builder.cpp tests/unit/common/planner/test_more_freedom.cpp \
	tests/unit/common/planner/test_sync_compare.cpp tests/unit/common/planner/test_virtual_stages.cpp \
	tests/unit/common/planner/test_fragmented.cpp tests/unit/common/planner/test_layout_compare.cpp
tests_unit_test_planner_CXXFLAGS = $(TEST_CXXFLAGS)
tests_unit_test_planner_LDADD = libsf_planner.la libsf_site.la libsf_cost.la libsf_plan.la libsf_milp.la libsf_model.la \
	libsf_topology.la libsf_util.la $(CBC_LIBS) $(GTEST_LIBS_ALL)

# model: catalogs and job specs
check_PROGRAMS += tests/unit/test_model
TESTS += tests/unit/test_model
tests_unit_test_model_SOURCES = tests/unit/common/model/test_catalog.cpp tests/unit/common/model/test_job_spec.cpp \
	tests/unit/common/model/test_job_spec_sync.cpp
tests_unit_test_model_CXXFLAGS = $(TEST_CXXFLAGS)
tests_unit_test_model_LDADD = libsf_model.la libsf_util.la $(GTEST_LIBS_ALL)

# cost model
check_PROGRAMS += tests/unit/test_cost
TESTS += tests/unit/test_cost
tests_unit_test_cost_SOURCES = tests/unit/common/small_model.h tests/unit/common/cost/cost_fixture.h tests/unit/common/cost/test_flops_memory.cpp \
	tests/unit/common/cost/test_cost_model.cpp tests/unit/common/cost/test_validation.cpp tests/unit/common/cost/test_gemm_efficiency.cpp \
	tests/unit/common/cost/test_recompute.cpp tests/unit/common/cost/test_fabric_shares.cpp tests/unit/common/cost/test_routes.cpp \
	tests/unit/common/cost/test_diloco.cpp tests/unit/common/cost/test_validation_diloco.cpp
tests_unit_test_cost_CXXFLAGS = $(TEST_CXXFLAGS)
tests_unit_test_cost_LDADD = libsf_cost.la libsf_plan.la libsf_topology.la libsf_model.la libsf_util.la -lpthread \
	$(GTEST_LIBS_ALL)

EXTRA_DIST += tests/data/slurm tests/data/hwloc tests/data/simulate tests/data/measured
include tests/fuzz/local.mk

# topology core: widest paths, our file format, writer, generator, examples
check_PROGRAMS += tests/unit/test_topology
TESTS += tests/unit/test_topology
tests_unit_test_topology_SOURCES = tests/unit/common/topology/topo_fixture.h tests/unit/common/topology/test_widest_paths.cpp \
	tests/unit/common/topology/test_reader.cpp tests/unit/common/topology/test_roundtrip.cpp tests/unit/common/topology/test_generator.cpp tests/unit/common/topology/test_generator_decentralized.cpp \
	tests/unit/common/topology/site_test_util.h tests/unit/common/topology/test_hostlist.cpp tests/unit/common/topology/test_slurm_conf.cpp \
	tests/unit/common/topology/test_slurm_reader.cpp tests/unit/common/topology/test_hwloc_reader.cpp tests/unit/common/topology/test_checks.cpp \
	tests/unit/common/topology/test_checks_slurm_compare.cpp \
	tests/unit/common/topology/test_node_order.cpp tests/unit/common/topology/test_tp_groups.cpp tests/unit/common/topology/test_fastest_paths.cpp
tests_unit_test_topology_CXXFLAGS = $(TEST_CXXFLAGS)
tests_unit_test_topology_LDADD = libsf_topology.la libsf_util.la $(HWLOC_LIBS) $(GTEST_LIBS_ALL)

# the plan picture rendered by librsvg: nothing drawn outside it, every stage in the legend
TESTS += tests/render/test_plan_svg_render.sh
EXTRA_DIST += tests/render/test_plan_svg_render.sh tests/render/svg_margin_check.py

# golden-file tests of the CLI: one line per case in tests/golden/cases.txt
TESTS += tests/golden/run_golden.sh
# every golden plan re-prices exactly and launches with the choices it was priced with
TESTS += tests/golden/golden_plans_as_priced.sh
EXTRA_DIST += tests/golden

# baseline planner policies
check_PROGRAMS += tests/unit/test_baselines
TESTS += tests/unit/test_baselines
tests_unit_test_baselines_SOURCES = tests/unit/common/planner/baselines/test_baselines.cpp \
	tests/unit/common/planner/baselines/test_published.cpp
tests_unit_test_baselines_CXXFLAGS = $(TEST_CXXFLAGS)
tests_unit_test_baselines_LDADD = libsf_planner.la libsf_cost.la libsf_plan.la libsf_milp.la libsf_model.la \
	libsf_topology.la libsf_util.la $(CBC_LIBS) $(GTEST_LIBS_ALL)

# integration: the submit path on a real Slurm cluster started on localhost;
# exits 77 (skipped) without root or the Slurm/munge binaries.
TESTS += tests/integration/test_slurm_submit.sh
# packaging: the packages `make deb` built, installed into a Debian root; a stage of .ci/run (it
# needs the packages and a network mirror), not of make check.
EXTRA_DIST += tests/packaging/test_packages.sh
# ... and, in seconds, that every file make install writes is in a package (dh_missing and
# rpmbuild refuse the package build otherwise).
TESTS += tests/packaging/test_install_lists.sh
# broker: the broker's state, tokens, config and store (no HTTP)
check_PROGRAMS += tests/unit/test_broker
TESTS += tests/unit/test_broker
tests_unit_test_broker_SOURCES = tests/unit/services/broker/test_broker.cpp tests/unit/services/broker/test_federation_changes.cpp \
	tests/unit/services/broker/test_group_commit.cpp
tests_unit_test_broker_CXXFLAGS = $(TEST_CXXFLAGS)
tests_unit_test_broker_LDADD = libsf_broker.la libsf_coalloc.la libsf_site.la libsf_topology.la libsf_model.la libsf_util.la \
	$(SQLITE_LIBS) $(MARIADB_LIBS) $(LIBCRYPTO_LIBS) $(HWLOC_LIBS) $(GTEST_LIBS_ALL)
# the broker's link probes and their wire format
check_PROGRAMS += tests/unit/test_probe_board
TESTS += tests/unit/test_probe_board
tests_unit_test_probe_board_SOURCES = tests/unit/services/broker/test_probe_board.cpp
tests_unit_test_probe_board_CXXFLAGS = $(TEST_CXXFLAGS)
tests_unit_test_probe_board_LDADD = libsf_broker.la libsf_probe.la libspiderflow.la $(SQLITE_LIBS) $(MARIADB_LIBS) \
	$(LIBCRYPTO_LIBS) $(GTEST_LIBS_ALL)
# the broker's new plan for a requeued cross-site job
check_PROGRAMS += tests/unit/test_replan
TESTS += tests/unit/test_replan
tests_unit_test_replan_SOURCES = tests/unit/services/broker/test_replan.cpp
tests_unit_test_replan_CXXFLAGS = $(TEST_CXXFLAGS)
tests_unit_test_replan_LDADD = libsf_replan.la libsf_submit.la libsf_slurmjob.la libsf_launch_env.la libsf_coalloc.la libspiderflow.la $(GTEST_LIBS_ALL)
# The cluster agent's logic: observation to part, part deltas, config, links file.
check_PROGRAMS += tests/unit/test_agent
TESTS += tests/unit/test_agent
tests_unit_test_agent_SOURCES = tests/unit/services/slurmjob/summary_fixture.h tests/unit/services/agent/test_agent.cpp tests/unit/services/agent/test_part_runner.cpp tests/unit/services/agent/test_probe_runner.cpp \
	tests/unit/services/agent/test_home_jobs.cpp tests/unit/services/agent/test_start_nudges.cpp
tests_unit_test_agent_CXXFLAGS = $(TEST_CXXFLAGS)
tests_unit_test_agent_LDADD = libsf_agent.la libsf_broker_api.la libsf_probe.la libsf_coalloc.la libsf_broker_client.la libsf_slurmjob.la libsf_launch_env.la libspiderflow.la \
	$(CURL_LIBS) $(SLURM_LIBS) $(GTEST_LIBS_ALL)
# The federation broker on loopback: auth, limits, restart, kill -9.
TESTS += tests/integration/test_brokerd.sh
EXTRA_DIST += tests/integration/test_brokerd.sh
# The probe's iperf3 reading and handshake RTT.
check_PROGRAMS += tests/unit/test_link_probe
TESTS += tests/unit/test_link_probe
tests_unit_test_link_probe_SOURCES = tests/unit/services/probe/test_link_probe.cpp
tests_unit_test_link_probe_CXXFLAGS = $(TEST_CXXFLAGS)
tests_unit_test_link_probe_LDADD = libsf_probe.la libspiderflow.la $(GTEST_LIBS_ALL)
# spiderflow probe on a tc-shaped veth pair, published to a broker, moving the next plan.
TESTS += tests/integration/test_probe.sh
EXTRA_DIST += tests/integration/test_probe.sh
# Cross-site jobs through the broker's routes, curl as the agents.
TESTS += tests/integration/test_broker_xjobs.sh
EXTRA_DIST += tests/integration/test_broker_xjobs.sh tests/integration/checks.sh tests/integration/one_broker.sh
# Two brokers on one real MariaDB: the lease, the standby, failover under kill -9.
TESTS += tests/integration/test_brokerd_mariadb.sh
EXTRA_DIST += tests/integration/test_brokerd_mariadb.sh tests/integration/mariadb.sh
# Two real Slurm clusters, the broker and one agent each.
TESTS += tests/integration/test_federation_agents.sh
EXTRA_DIST += tests/integration/test_federation_agents.sh tests/integration/federation.sh
# Three clusters: a plain sbatch runs as one world over all three, through a broker kill -9,
# a cancelled part and a silent agent.
TESTS += tests/integration/test_federation_three.sh
EXTRA_DIST += tests/integration/test_federation_three.sh
# Faults (issue 41): one site cut off from the broker (its cluster in a network namespace, every
# packet dropped) during co-allocation and while running: no part runs alone, nothing stays
# reserved past the grace, the job fails or runs again exactly once.
TESTS += tests/integration/test_fault_agent_cut.sh
EXTRA_DIST += tests/integration/test_fault_agent_cut.sh tests/integration/netns_link.sh
# ... two brokers on MariaDB, the active one killed -9 during co-allocation: the job starts once.
TESTS += tests/integration/test_fault_broker_failover.sh
EXTRA_DIST += tests/integration/test_fault_broker_failover.sh
# ... a remote slurmctld restarted while its part starts, the home agent killed -9 during the
# hand-over: the job is handed over once and starts once.
TESTS += tests/integration/test_fault_ctld_agent.sh
EXTRA_DIST += tests/integration/test_fault_ctld_agent.sh
# ... and the soak's short version: 20 cross-site jobs, the broker restarted twice.
TESTS += tests/integration/test_soak_short.sh
EXTRA_DIST += tests/integration/test_soak_short.sh
# the evaluation's quick part and its report's shape (bench/federation_eval.sh --part quick)
TESTS += tests/integration/test_federation_eval_quick.sh
EXTRA_DIST += tests/integration/test_federation_eval_quick.sh
# a real framework's world (Debian's python3-torch, gloo) on one cluster and across two
TESTS += tests/integration/test_torch_world.sh
EXTRA_DIST += tests/integration/test_torch_world.sh tests/integration/torch_world.py
# a site's nodes lost mid-run: the job requeued, planned anew without them, resumed from its
# checkpoint (PyTorch, gloo); the retry bound; kill -9 of the broker during a requeue
TESTS += tests/integration/test_requeue.sh
# link probes through the broker: serve and measure jobs on two clusters' compute nodes
TESTS += tests/integration/test_probe_jobs.sh
EXTRA_DIST += tests/integration/test_probe_jobs.sh
EXTRA_DIST += tests/integration/test_requeue.sh tests/integration/torch_resume.py
# One cross-site job from this host's Slurm to another version's in its Debian root: skipped
# unless SF_MIXED_SUITE is set; .ci/run runs it after test-slurm-version.sh built that root's part.
TESTS += tests/integration/test_mixed_versions.sh
EXTRA_DIST += tests/integration/test_mixed_versions.sh
# select/spiderflow_cons_tres and sched/spiderflow in a real slurmctld (skips unless built
# with --with-slurm-source).
TESTS += tests/integration/test_select_sched.sh
EXTRA_DIST += tests/integration/test_select_sched.sh
EXTRA_DIST += tests/integration/slurm_cluster.sh tests/integration/test_slurm_submit.sh
# ... and the job prolog/epilog's traffic class on a stand-in WAN interface.
TESTS += tests/integration/test_slurm_job_tc.sh
EXTRA_DIST += tests/integration/test_slurm_job_tc.sh

# the plan's carried form (zlib + base64) and the user-side plan file reader
check_PROGRAMS += tests/unit/test_plan_transport
TESTS += tests/unit/test_plan_transport
tests_unit_test_plan_transport_SOURCES = tests/unit/common/plan/test_plan_transport.cpp
tests_unit_test_plan_transport_CXXFLAGS = $(TEST_CXXFLAGS)
tests_unit_test_plan_transport_LDADD = libsf_plan_transport.la libsf_util.la $(GTEST_LIBS_ALL)

# co-allocation of cross-site jobs: one file per part of the co-allocator, the end causes, the
# run words, the wire names and the JSON
check_PROGRAMS += tests/unit/test_coalloc
TESTS += tests/unit/test_coalloc
tests_unit_test_coalloc_SOURCES = tests/unit/services/coalloc/coalloc_fixture.h tests/unit/services/coalloc/test_coallocator.cpp \
	tests/unit/services/coalloc/test_coallocator_stages.cpp tests/unit/services/coalloc/test_coallocator_reports.cpp \
	tests/unit/services/coalloc/test_coallocator_timers.cpp tests/unit/services/coalloc/test_coallocator_requeue.cpp \
	tests/unit/services/coalloc/test_coallocator_orders.cpp tests/unit/services/coalloc/test_end_causes.cpp \
	tests/unit/services/coalloc/test_run_words.cpp tests/unit/services/coalloc/test_order_report_names.cpp \
	tests/unit/services/coalloc/test_xjob_json.cpp
tests_unit_test_coalloc_CXXFLAGS = $(TEST_CXXFLAGS)
tests_unit_test_coalloc_LDADD = libsf_coalloc.la libsf_util.la $(GTEST_LIBS_ALL)

# site state: usage overlay, what-if copies, deltas, snapshots, free view
check_PROGRAMS += tests/unit/test_site
TESTS += tests/unit/test_site
tests_unit_test_site_SOURCES = tests/unit/common/site/test_site_state.cpp tests/unit/common/site/test_site_json.cpp tests/unit/common/site/test_node_pick.cpp
tests_unit_test_site_CXXFLAGS = $(TEST_CXXFLAGS)
tests_unit_test_site_LDADD = libsf_site.la libsf_topology.la libsf_util.la $(HWLOC_LIBS) \
	$(GTEST_LIBS_ALL)

check_PROGRAMS += tests/unit/test_fedsim
TESTS += tests/unit/test_fedsim
tests_unit_test_fedsim_SOURCES = tests/unit/services/fedsim/fed_fixture.h tests/unit/services/fedsim/test_fed_simulator.cpp \
	tests/unit/services/fedsim/test_job_trace.cpp tests/unit/services/fedsim/test_wan_sharing.cpp tests/unit/services/fedsim/test_run_summary.cpp
tests_unit_test_fedsim_CXXFLAGS = $(TEST_CXXFLAGS)
tests_unit_test_fedsim_LDADD = libsf_fedsim.la libspiderflow.la $(GTEST_LIBS_ALL)


# the `spiderflow` option table: parsing, refusals, --help
check_PROGRAMS += tests/unit/test_cli_options
TESTS += tests/unit/test_cli_options
tests_unit_test_cli_options_SOURCES = tests/unit/common/util/test_cli_options.cpp
tests_unit_test_cli_options_CXXFLAGS = $(TEST_CXXFLAGS)
tests_unit_test_cli_options_LDADD = libsf_util.la $(GTEST_LIBS_ALL)

# `spiderflow launch`'s start barrier between the parts of a cross-site job, on loopback
check_PROGRAMS += tests/unit/test_start_barrier
TESTS += tests/unit/test_start_barrier
tests_unit_test_start_barrier_SOURCES = tests/unit/services/start_barrier/test_start_barrier.cpp
tests_unit_test_start_barrier_CXXFLAGS = $(TEST_CXXFLAGS)
tests_unit_test_start_barrier_LDADD = libsf_start_barrier.la $(HTTPLIB_LIBS) $(GTEST_LIBS_ALL) -lpthread

# util: errors, number formats, key=value configs, secret and text files, lists, units,
# reload-on-change (StampedFile)
# (json_read has its own binary, tests/unit/test_util)
check_PROGRAMS += tests/unit/test_util_misc
TESTS += tests/unit/test_util_misc
tests_unit_test_util_misc_SOURCES = tests/unit/common/util/test_errors.cpp tests/unit/common/util/test_human_format.cpp \
	tests/unit/common/util/test_key_value_conf.cpp tests/unit/common/util/test_files.cpp \
	tests/unit/common/util/test_split_list.cpp tests/unit/common/util/test_units.cpp \
	tests/unit/common/util/test_stamped_file.cpp tests/unit/common/util/test_utf8_prefix.cpp
tests_unit_test_util_misc_CXXFLAGS = $(TEST_CXXFLAGS)
tests_unit_test_util_misc_LDADD = libsf_util.la $(GTEST_LIBS_ALL)

# broker_api_types: the bodies of the broker's /v1 routes, written and read back
check_PROGRAMS += tests/unit/test_broker_api
TESTS += tests/unit/test_broker_api
tests_unit_test_broker_api_SOURCES = tests/unit/services/broker_client/test_broker_api_types.cpp
tests_unit_test_broker_api_CXXFLAGS = $(TEST_CXXFLAGS)
tests_unit_test_broker_api_LDADD = libsf_broker_api.la libsf_probe.la libsf_coalloc.la libspiderflow.la $(HWLOC_LIBS) $(CBC_LIBS) \
	$(GTEST_LIBS_ALL)

# broker_client: the libcurl client against a broker in the test's own process (cpp-httplib)
check_PROGRAMS += tests/unit/test_broker_client
TESTS += tests/unit/test_broker_client
tests_unit_test_broker_client_SOURCES = tests/unit/services/broker_client/loopback_broker.h \
	tests/unit/services/broker_client/test_broker_client.cpp
tests_unit_test_broker_client_CPPFLAGS = $(AM_CPPFLAGS) $(HTTPLIB_CFLAGS)
tests_unit_test_broker_client_CXXFLAGS = $(TEST_CXXFLAGS)
tests_unit_test_broker_client_LDADD = libsf_broker_client.la libsf_util.la $(CURL_LIBS) $(HTTPLIB_LIBS) -lpthread $(GTEST_LIBS_ALL)

# spiderflow doctor on a real site (a cluster, the broker, its agent): nothing found as set up,
# then nine misconfigurations planted one at a time, each found with its fix
TESTS += tests/integration/test_doctor.sh
EXTRA_DIST += tests/integration/test_doctor.sh tests/data/doctor tests/data/topocheck
# spiderflow doctor: its readers (plugin files, plugstack.conf, libslurm's report) and each check
# on planted facts (tools/spiderflow/doctor)
check_PROGRAMS += tests/unit/test_doctor
TESTS += tests/unit/test_doctor
tests_unit_test_doctor_SOURCES = tests/unit/tools/spiderflow/doctor/test_doctor_files.cpp \
	tests/unit/tools/spiderflow/doctor/test_doctor_checks.cpp $(DOCTOR_SOURCES) \
	tools/spiderflow/doctor/libslurm_view.h tools/spiderflow/doctor/libslurm_view.cpp \
	tools/spiderflow/topo_check.h tools/spiderflow/topo_check.cpp
tests_unit_test_doctor_CXXFLAGS = $(TEST_CXXFLAGS)
tests_unit_test_doctor_LDADD = libsf_agent.la libsf_slurmjob.la libsf_launch_env.la libspiderflow.la $(SLURM_LIBS) $(GTEST_LIBS_ALL)
# Monitoring: the broker's /metrics and status page, the agent's textfile, and the Grafana
# dashboard's queries against both exporters' names.
check_PROGRAMS += tests/unit/test_monitoring
TESTS += tests/unit/test_monitoring
tests_unit_test_monitoring_SOURCES = tests/unit/services/monitoring/exported_names.h tests/unit/services/monitoring/monitoring_fixture.h \
	tests/unit/services/monitoring/test_broker_metrics.cpp tests/unit/services/monitoring/test_agent_metrics.cpp \
	tests/unit/services/monitoring/test_status_page.cpp tests/unit/services/monitoring/test_dashboard_names.cpp \
	tests/unit/common/plan/plan_fixture.h
tests_unit_test_monitoring_CXXFLAGS = $(TEST_CXXFLAGS)
tests_unit_test_monitoring_LDADD = libsf_status_page.la libsf_broker.la libsf_agent.la libsf_broker_api.la libsf_probe.la libsf_coalloc.la \
	libsf_broker_client.la libsf_slurmjob.la libsf_launch_env.la libspiderflow.la \
	$(SQLITE_LIBS) $(MARIADB_LIBS) $(LIBCRYPTO_LIBS) $(CURL_LIBS) $(SLURM_LIBS) $(GTEST_LIBS_ALL)
# The broker's status page in headless Chromium: sign-in, a running cross-site job, hostile text,
# a screenshot kept under tests/integration/status-page/.
TESTS += tests/integration/test_status_page.sh
EXTRA_DIST += tests/integration/test_status_page.sh
# promtool on the agent's textfile and the broker's /metrics from live daemons, and the Grafana
# dashboard's names against them.
TESTS += tests/integration/test_metrics.sh
EXTRA_DIST += tests/integration/test_metrics.sh
# test_status_page.sh's artifacts (the page's screenshot and DOM).
CLEANFILES += tests/integration/status-page/status.png tests/integration/status-page/status.dom.html
