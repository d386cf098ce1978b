#!/bin/bash
# The federation the cross-site benches run on (bench/cross_site_start_bench.sh,
# bench/requeue_bench.sh): two real Slurm clusters on localhost, alpha (an1, an2) and beta (bn1,
# bn2, bn3), 8 fake GPUs a node, the broker and an agent per cluster
# (tests/integration/federation.sh), started and published. Source it from a bench, after
# setting SRC (the source tree); sets SETTINGS (what the figures were measured at).
# Settings: the integration tests' (agent interval 1 s, coalloc_lead 4 s), or with DEFAULTS=1
# what a site gets without tuning: SpiderFlow's shipped defaults (agent interval 5 s, heartbeat
# 60 s, coalloc_lead 30 s, part_end_grace, requeue_settle) and Slurm's own KillWait (30 s) and
# sched_interval (60 s), which the test clusters shorten.
export SF_BUILDDIR=${SF_BUILDDIR:-$(pwd)}
. "$SRC/tests/integration/federation.sh"
fed_init alpha:an1,an2 beta:bn1,bn2,bn3
for c in alpha beta; do echo "part_min_uid = 0" >>"$SF_TMP/$c/agent.conf"; done  # the bench runs as root
SETTINGS="agent interval 1 s, coalloc_lead 4 s"
if [ -n "${DEFAULTS:-}" ]; then
    for c in alpha beta; do
        sed -i '/^interval = /d; /^heartbeat = /d; /^broker_stale_after = /d' "$SF_TMP/$c/agent.conf"
        sed -i '/^KillWait=/d; /^SchedulerParameters=sched_interval=1$/d' "$SF_TMP/$c/slurm.conf"
    done
    sed -i '/^coalloc_lead = /d' "$SF_TMP/brokerd.conf"
    SETTINGS="SpiderFlow's and Slurm's defaults"
fi
fed_start
ready() { grep -q '"epoch"' "$SF_TMP/alpha/federation-state.json" 2>/dev/null; }
within 30 ready || { echo "$(basename "$0"): alpha's agent never wrote the federation's state" >&2; exit 1; }
sleep 3  # both clusters published
gone() { [ -z "$(on "$1" squeue -h -t R,PD,CG -o %i 2>/dev/null)" ]; }
