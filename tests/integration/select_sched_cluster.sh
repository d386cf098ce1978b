#!/bin/bash
# One Slurm cluster for select/spiderflow_cons_tres and sched/spiderflow (the integration test and
# bench/select_sched_bench.sh): 8 nodes n1..n8 under 4 leaf switches l1..l4 (2 a leaf, spines
# sp1={l1,l2}, sp2={l3,l4}), TopologyParam=TopoOptional, our plugins' build directories first in
# PluginDir, a broker (federation.sh), and $SF_TMP/plan.json: llama3-8b on 32 GPUs of sel as
# tp 8, pp 2, dp 2 (two stages of two nodes). Source it from a test or bench; exits 77 when the plugins are
# not built. Then: sel_start_munge_and_broker; use_plugins SELECT SCHED; sf_start_slurm "$D" ...;
# stop_slurm.
. "$(dirname "${BASH_SOURCE[0]}")/federation.sh"
for so in "$SF_BUILDDIR/plugins/select/.libs/select_spiderflow_cons_tres.so" "$SF_BUILDDIR/plugins/sched/.libs/sched_spiderflow.so"; do
    [ -f "$so" ] || { sf_log "skip: $so not built (configure --with-slurm-source)"; exit 77; }
done
C=sel
# A second cluster "far" exists in the federation's topology only (never started): plans larger
# than sel cross to it, which gives jobs WAN coflows for sched/spiderflow to order.
fed_init "$C:n1,n2,n3,n4,n5,n6,n7,n8" "far:f1,f2,f3,f4,f5,f6,f7,f8"
D=$SF_TMP/$C
eight_node_leaves "$C"
sed -i "s#^PluginDir=#PluginDir=$SF_BUILDDIR/plugins/select/.libs:$SF_BUILDDIR/plugins/sched/.libs:#" "$D/slurm.conf"
echo "TopologyParam=TopoOptional" >>"$D/slurm.conf"
export SLURM_CONF=$D/slurm.conf SPIDERFLOW_CONF=$D/spiderflow.conf
# A plan with two pipeline stages of two nodes each, fixed degrees, made the way a user makes one.
"$SF_BUILDDIR/spiderflow" plan --topology "$SF_TMP/federation.json" --model llama3-8b --global-batch 64 --seq-len 4096 \
    --gpus 32 --tp 8 --pp 2 --dp 2 --allow "$C" >"$SF_TMP/plan.json" || { sf_log "spiderflow plan failed"; exit 1; }

SEL_NODES=(n1 n2 n3 n4 n5 n6 n7 n8)
sel_start_munge_and_broker() {
    sf_start_munge || exit 1
    start_broker || exit 1
    MUNGE_PIDS=("${SF_PIDS[@]}")
}

use_plugins() {  # use_plugins SELECT SCHED
    sed -i "s#^SelectType=.*#SelectType=$1#; s#^SchedulerType=.*#SchedulerType=$2#" "$D/slurm.conf"
}
stop_slurm() {  # slurmd and slurmctld of this cluster; munged and the broker stay
    local i pid
    for ((i = ${#SF_PIDS[@]} - 1; i >= ${#MUNGE_PIDS[@]}; i--)); do kill "${SF_PIDS[$i]}" 2>/dev/null; done
    for ((i = ${#MUNGE_PIDS[@]}; i < ${#SF_PIDS[@]}; i++)); do
        pid=${SF_PIDS[$i]}
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null
    done
    SF_PIDS=("${MUNGE_PIDS[@]}")
}
running() { [ "$(squeue -h -j "$1" -o %T 2>/dev/null)" = RUNNING ]; }
# Nodes and GPUs a job got, one "node gres" pair per node (scontrol show job -d)
placement() {
    scontrol -d show job "$1" | sed -n 's/^ *Nodes=\([^ ]*\) .*GRES=\([^ ]*\).*/\1 \2/p' | tr '\n' ';'
}
leaf_switches() {  # leaf switches of a node list
    local n sw=()
    for n in $(scontrol show hostnames "$1"); do sw+=("$(leaf_of "$n")"); done
    printf '%s\n' "${sw[@]}" | sort -u | wc -l
}
submit() { sbatch --parsable -o /dev/null "$@" --wrap "sleep 600" 2>>"$SF_TMP/sbatch.err"; }

