# bench: files are listed here as they land

# coflow schedulers: trace CCTs, LLM job mixes, decision time
noinst_PROGRAMS += bench/coflow_bench
bench_coflow_bench_SOURCES = bench/coflow_bench.cpp
bench_coflow_bench_LDADD = libsf_coflow.la libsf_cost.la libsf_plan.la libsf_topology.la libsf_model.la libsf_util.la $(HWLOC_LIBS)

# planner policies: plan time and predicted iteration time, 4 to 1024 clusters
noinst_PROGRAMS += bench/planner_bench
bench_planner_bench_SOURCES = bench/planner_bench.cpp
bench_planner_bench_LDADD = libspiderflow.la

# cost model speed per estimate
noinst_PROGRAMS += bench/cost_bench
bench_cost_bench_SOURCES = bench/cost_bench.cpp
bench_cost_bench_LDADD = libsf_cost.la libsf_plan.la libsf_topology.la libsf_model.la libsf_util.la

# topology: generator and all-pairs widest paths, 8 to 1024 clusters
noinst_PROGRAMS += bench/topology_bench
bench_topology_bench_SOURCES = bench/topology_bench.cpp
bench_topology_bench_LDADD = libsf_topology.la libsf_util.la $(HWLOC_LIBS)

# submit path: sbatch latency and throughput with job_submit/spiderflow on a localhost Slurm
EXTRA_DIST += bench/submit_bench.sh
# the federations those benches build (this cluster among generated ones) and their broker
EXTRA_DIST += bench/federation_topology.sh bench/federation_broker.sh
# the planner's memory choices: default MFU before and after (issue 38)
EXTRA_DIST += bench/memory_choices_bench.sh bench/data/one-cluster-1024-h100.json

# federation broker: write and read latency, CPU and RSS of spiderflow-brokerd at 64 clusters
noinst_PROGRAMS += bench/broker_bench
bench_broker_bench_SOURCES = bench/broker_bench.cpp
bench_broker_bench_LDADD = libsf_broker_api.la libsf_probe.la libsf_coalloc.la libsf_broker_client.la libsf_site.la libsf_topology.la libsf_model.la libsf_util.la \
	$(CURL_LIBS) $(HWLOC_LIBS) -lpthread
EXTRA_DIST += bench/broker_bench.sh
# By hand only, never from make check: a 64-cluster broker on loopback for about a minute.
bench-broker: bench/broker_bench spiderflow spiderflow-brokerd
	$(srcdir)/bench/broker_bench.sh $(BENCH_BROKER_ARGS)
.PHONY: bench-broker
# By hand only, as root: sbatch of a cross-site job against 1,024 clusters (and 64) on a localhost
# Slurm with the broker, this cluster's agent and the others' load; about ten minutes.
EXTRA_DIST += bench/sbatch_federation_bench.sh
bench-sbatch-federation: bench/broker_bench spiderflow spiderflow-brokerd spiderflow-agent \
	plugins/job_submit/job_submit_spiderflow.la plugins/spank/spiderflow.la plugins/spank/spiderflow_stepd.la
	$(srcdir)/bench/sbatch_federation_bench.sh $(BENCH_SBATCH_FEDERATION_ARGS)
.PHONY: bench-sbatch-federation

# the soak (issue 41): 300 short cross-site jobs over three real clusters, the broker restarted
# twice; none lost or run twice, nothing left, the daemons' memory. As root, about 30 minutes.
EXTRA_DIST += bench/soak_bench.sh
bench-soak: spiderflow spiderflow-brokerd spiderflow-agent
	SF_BUILDDIR='$(abs_top_builddir)' $(srcdir)/bench/soak_bench.sh $(BENCH_SOAK_JOBS)
.PHONY: bench-soak

# federation agent: job start on a cluster to the broker showing it, real Slurm + brokerd + agent
EXTRA_DIST += bench/agent_visibility_bench.sh

# cross-site jobs: the broker's co-allocation decisions per second with 100 jobs queued
noinst_PROGRAMS += bench/coalloc_bench
bench_coalloc_bench_SOURCES = bench/coalloc_bench.cpp
bench_coalloc_bench_LDADD = libsf_broker.la libsf_coalloc.la libsf_util.la \
	$(SQLITE_LIBS) $(MARIADB_LIBS) $(LIBCRYPTO_LIBS)

# cross-site jobs: plain sbatch to every part running, and the start skew, on two real clusters
EXTRA_DIST += bench/cross_site_start_bench.sh bench/cross_site_setup.sh
# ... and after a lost remote node, requeue to running against the first start
EXTRA_DIST += bench/requeue_bench.sh bench/lost_peer_rank.py

# select/spiderflow_cons_tres: leaf switches and split stages of planned jobs vs cons_tres alone
noinst_PROGRAMS += bench/placement_bench
bench_placement_bench_SOURCES = bench/placement_bench.cpp
bench_placement_bench_LDADD = libsf_site.la libsf_cost.la libsf_plan.la libsf_topology.la libsf_model.la libsf_util.la $(HWLOC_LIBS)

# slurmctld scheduling cost with the select/sched pair over cons_tres + backfill (sdiag)
EXTRA_DIST += bench/select_sched_bench.sh

# where a planned job lands inside a cluster, per Slurm version: leaf switches against the fewest
EXTRA_DIST += bench/node_choice_bench.sh

# bf16 GEMM throughput for transformer shapes under tensor parallelism (cuBLAS; needs a GPU to run).
# bench/results/gemm_shapes_h200.csv is one run on an H200.
if HAVE_CUDA
noinst_PROGRAMS += bench/gemm_shapes
bench_gemm_shapes_SOURCES = bench/gemm_shapes.cpp
bench_gemm_shapes_CPPFLAGS = -I$(CUDA_DIR)/include
bench_gemm_shapes_LDFLAGS = -L$(CUDA_DIR)/lib64 -Wl,-rpath,$(CUDA_DIR)/lib64
bench_gemm_shapes_LDADD = -lcublas -lcudart
endif
EXTRA_DIST += bench/results/gemm_shapes_h200.csv

# the federation evaluation: every placement policy on decentralized federations, in parts, report in doc/evaluation
EXTRA_DIST += bench/federation_eval.sh bench/federation_report.py
