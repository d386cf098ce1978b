#!/bin/bash
# A federation of real Slurm clusters on localhost for the integration tests: each cluster's
# slurmctld and slurmd (fake GPUs), one spiderflow-brokerd and one spiderflow-agent per
# cluster, all under a temporary directory and stopped by PID at exit. Source it, then
#   fed_init alpha:an1,an2 beta:bn1,bn2,bn3       # configs: topology, broker, agents
#   fed_start                                     # munged, the clusters, the broker, the agents
# Sets SF_TMP, URL (the broker), FED_CLUSTERS and, per cluster, its directory $SF_TMP/NAME with
# slurm.conf, spiderflow.conf, agent.conf and agent.log. Exits 77 where the daemons cannot run.
# A cluster of another Slurm version: before sourcing, FED_ROOT[NAME] names a Debian root
# (debian-root.sh) whose daemons, commands and agent it runs, FED_BUILD[NAME] the build made in
# it, and SF_FED_TMPDIR a parent for SF_TMP that the root sees at the same path (the repository).
# SF_GPUS_PER_NODE (8 unless set): fake GPUs on every node.
. "$(dirname "${BASH_SOURCE[0]}")/slurm_cluster.sh"
sf_cluster_can_run || exit 77
for b in "$SF_BUILDDIR/spiderflow-brokerd" "$SF_BUILDDIR/spiderflow-agent"; do
    [ -x "$b" ] || { sf_log "skip: $b not built"; exit 77; }
done
command -v curl >/dev/null || { sf_log "skip: curl missing"; exit 77; }

declare -A FED_ROOT FED_BUILD
# FED_NETNS[NAME]: the network namespace that cluster runs in (netns_link.sh); FED_BROKER_ADDR: the
# address the broker listens on (127.0.0.1 unless a namespace must reach it).
declare -A FED_NETNS
SF_TMP=$(mktemp -d "${SF_FED_TMPDIR:-/tmp}/sf-fed-it.XXXXXX")
chmod 755 "$SF_TMP"
AGENT_PIDS=()
BROKER_PID=
FED_CLUSTERS=()
declare -A FED_NODES
fed_stop_all() {
    local p
    for p in "${AGENT_PIDS[@]}" $BROKER_PID; do kill "$p" 2>/dev/null; done
    for p in "${AGENT_PIDS[@]}" $BROKER_PID; do wait "$p" 2>/dev/null; done
    sf_cluster_stop
}
trap fed_stop_all EXIT

# fed_init NAME:NODE,NODE... ...: every cluster's configs, the federation's topology (every pair
# of clusters linked at 10 Gbit/s, 20 ms), the broker's config and tokens.
fed_init() {
    local spec name nodes i=0 base n
    [ $# -le 3 ] || { echo "fed_init: at most 3 clusters fit one port block" >&2; exit 1; }
    base=$(sf_port_block) || exit 1   # 10 ports a cluster: slurmctld, then one per slurmd
    local clusters_json="" links_json=""
    for spec in "$@"; do
        name=${spec%%:*}
        nodes=${spec#*:}
        FED_CLUSTERS+=("$name")
        FED_NODES[$name]=${nodes//,/ }
        SF_BUILDDIR=${FED_BUILD[$name]:-$SF_BUILDDIR} sf_write_slurm_conf "$SF_TMP/$name" "$name" "$((base + i * 10))" ${FED_NODES[$name]}
        echo "SwitchName=s1 Nodes=${nodes}" >"$SF_TMP/$name/topology.conf"
        local node_list=""
        for n in ${FED_NODES[$name]}; do
            node_list+="${node_list:+, }{\"name\": \"$n\", \"gpus\": ${SF_GPUS_PER_NODE:-8}, \"gpu_type\": \"H100-SXM\", \"nvlink_domain\": ${SF_GPUS_PER_NODE:-8}, \"nics\": [{\"name\": \"mlx5_0\", \"kind\": \"ib\", \"gbps\": 400}], \"switch\": \"s1\"}"
        done
        clusters_json+="${clusters_json:+,
    }{\"name\": \"$name\", \"region\": \"r$i\", \"intra_gbps\": 400, \"intra_latency_ms\": 0.005, \"nodes\": [$node_list], \"switches\": [{\"name\": \"s1\"}]}"
        i=$((i + 1))
    done
    local a b
    for ((a = 0; a < ${#FED_CLUSTERS[@]}; a++)); do
        for ((b = a + 1; b < ${#FED_CLUSTERS[@]}; b++)); do
            links_json+="${links_json:+, }{\"a\": \"${FED_CLUSTERS[a]}\", \"b\": \"${FED_CLUSTERS[b]}\", \"gbps\": 10, \"latency_ms\": 20}"
        done
    done
    cat >"$SF_TMP/federation.json" <<JSON
{
  "spiderflow_topology_version": 1,
  "name": "federation-it",
  "clusters": [
    $clusters_json
  ],
  "links": [$links_json]
}
JSON
    BPORT=$(free_port)
    URL=http://${FED_BROKER_ADDR:-127.0.0.1}:$BPORT
    # Every MASTER_PORT from this test's own port block (the clusters take its first 10 ports
    # each): cross-site jobs' from its last 10, each cluster's one-cluster jobs' from what lies
    # between. Two tests' worlds on this one host never meet on a port, and no job's rendezvous
    # lands on a slurmd's port (the default 29500 + job id lies inside the blocks tests take).
    { brokerd_conf "$SF_TMP" "$BPORT" "$SF_TMP/federation.json" | sed "s/^listen = .*/listen = ${FED_BROKER_ADDR:-127.0.0.1}/"; echo "coalloc_lead = 4"
      printf 'master_port_base = %s\nmaster_port_span = 10\n' "$((base + 40))"; } >"$SF_TMP/brokerd.conf"
    : >"$SF_TMP/tokens"
    local span=$(((40 - ${#FED_CLUSTERS[@]} * 10) / ${#FED_CLUSTERS[@]}))
    i=0
    for name in "${FED_CLUSTERS[@]}"; do
        echo "cluster $name $(echo "tok-$name" | "$SF_BUILDDIR/spiderflow-brokerd" --hash-token)" >>"$SF_TMP/tokens"
        local d=$SF_TMP/$name
        cat >"$d/spiderflow.conf" <<CONF
topology = $SF_TMP/federation.json
cluster = $name
site_state = $d/federation-state.json
time_budget = 5
master_port_base = $((base + ${#FED_CLUSTERS[@]} * 10 + i * span))
master_port_span = $span
CONF
        i=$((i + 1))
        echo "tok-$name" >"$d/agent.token"
        chmod 600 "$d/agent.token"
        cat >"$d/agent.conf" <<CONF
broker = $URL
token_file = $d/agent.token
spiderflow_conf = $d/spiderflow.conf
interval = 1
heartbeat = 5
broker_stale_after = 3
CONF
    done
    echo "reader tools $(echo tok-tools | "$SF_BUILDDIR/spiderflow-brokerd" --hash-token)" >>"$SF_TMP/tokens"
    echo tok-tools >"$SF_TMP/reader.token"
    chmod 600 "$SF_TMP/tokens" "$SF_TMP/reader.token"
}

# eight_node_leaves NAME: the topology.conf of a cluster made with fed_init "NAME:n1,...,n8" (the
# select/sched test and bench, bench/node_choice_bench.sh): n1..n8 under 4 leaf switches l1..l4,
# two a leaf, spines sp1 = {l1, l2} and sp2 = {l3, l4}. leaf_of NODE names a node's leaf.
eight_node_leaves() {
    cat >"$SF_TMP/$1/topology.conf" <<CONF
SwitchName=l1 Nodes=n[1-2]
SwitchName=l2 Nodes=n[3-4]
SwitchName=l3 Nodes=n[5-6]
SwitchName=l4 Nodes=n[7-8]
SwitchName=sp1 Switches=l[1-2]
SwitchName=sp2 Switches=l[3-4]
SwitchName=top Switches=sp[1-2]
CONF
}
leaf_of() { echo "l$(((${1#n} + 1) / 2))"; }

start_broker() {
    "$SF_BUILDDIR/spiderflow-brokerd" --config "$SF_TMP/brokerd.conf" >>"$SF_TMP/brokerd.log" 2>&1 &
    BROKER_PID=$!
    for _ in $(seq 50); do curl -sf "$URL/healthz" >/dev/null && return 0; sleep 0.1; done
    sf_log "brokerd did not start"; cat "$SF_TMP/brokerd.log" >&2; return 1
}
# start_agent CLUSTER: sets AGENT_<CLUSTER>
start_agent() {
    SF_IN_NETNS=${FED_NETNS[$1]:-} SF_IN_ROOT=${FED_ROOT[$1]:-} sf_exec env SLURM_CONF="$SF_TMP/$1/slurm.conf" "${FED_BUILD[$1]:-$SF_BUILDDIR}/spiderflow-agent" \
        --config "$SF_TMP/$1/agent.conf" >>"$SF_TMP/$1/agent.log" 2>&1 &
    AGENT_PIDS+=($!)
    eval "AGENT_$1=$!"
}
stop_pid() { kill "$1" 2>/dev/null; wait "$1" 2>/dev/null; }
# restart_agent CLUSTER: after a change to its agent.conf
restart_agent() { eval "stop_pid \$AGENT_$1"; start_agent "$1"; }

fed_start() {
    local name
    sf_start_munge || exit 1
    for name in "${FED_CLUSTERS[@]}"; do SF_IN_NETNS=${FED_NETNS[$name]:-} SF_IN_ROOT=${FED_ROOT[$name]:-} sf_start_slurm "$SF_TMP/$name" ${FED_NODES[$name]} || exit 1; done
    start_broker || exit 1
    for name in "${FED_CLUSTERS[@]}"; do start_agent "$name"; done
}

# need_torch: Debian's python3-torch (gloo on CPU) for a real framework's world, as
# $torch_python; a missing one fails the test (.ci/run installs it).
need_torch() {
    torch_python=/usr/bin/python3
    if ! "$torch_python" -c 'import torch.distributed' 2>/dev/null; then
        echo "not ok - Debian's python3-torch is installed ($torch_python cannot import torch.distributed: apt-get install python3-torch)"
        exit 1
    fi
}

# within SECONDS COMMAND...: polls COMMAND every 0.2 s until it succeeds or time is up
within() { wait_for "$@" >/dev/null; }
# wait_for SECONDS COMMAND...: the same, printing the seconds it took
wait_for() {
    local limit=$1 t0 now
    shift
    t0=$(date +%s.%N)
    while :; do
        if "$@" >/dev/null 2>&1; then python3 -c "print(round($(date +%s.%N) - $t0, 1))"; return 0; fi
        now=$(date +%s.%N)
        python3 -c "import sys; sys.exit(0 if $now - $t0 < $limit else 1)" || return 1
        sleep 0.2
    done
}
# on CLUSTER COMMAND...: a Slurm command against that cluster
on() { local c=$1; shift; SF_IN_NETNS=${FED_NETNS[$c]:-} SF_IN_ROOT=${FED_ROOT[$c]:-} sf_run env SLURM_CONF="$SF_TMP/$c/slurm.conf" "$@"; }

xjob() { curl -s -H "Authorization: Bearer tok-tools" "$URL/v1/xjobs/$1"; }
xjob_field() { xjob "$1" | python3 -c "import json,sys; b=json.load(sys.stdin); print($2)"; }
xjob_state_is() { [ "$(xjob_field "$1" "b['state']")" = "$2" ]; }
# parts_running XJOB CLUSTER...: XJOB's part on each CLUSTER is RUNNING in Slurm.
parts_running() {
    local x=$1 c id
    shift
    for c in "$@"; do
        id=$(xjob_field "$x" "[p['job_id'] for p in b['parts'] if p['cluster'] == '$c'][0]")
        [ "$(on "$c" squeue -h -j "$id" -o %T 2>/dev/null)" = RUNNING ] || return 1
    done
}
# part_jobs_of XJOB CLUSTER: how many Slurm jobs on CLUSTER were a part of XJOB, any run (an
# exactly-once check: a part submitted twice shows here).
part_jobs_of() { on "$2" scontrol -o show job 2>/dev/null | grep -c "Comment=spiderflow-xjob $1 part "; }
# No SpiderFlow reservation left on any cluster.
no_reservation_left() {
    local c
    for c in "${FED_CLUSTERS[@]}"; do
        [ "$(on "$c" scontrol -o show reservation 2>/dev/null | grep -c spiderflow-)" = 0 ] || return 1
    done
}
# A training script for sbatch whose batch step and srun tasks write their place in the world
# to DIR: batch-CLUSTER.txt and rank-RANK.txt (cluster, rank, world, master, SLURM_PROCID, time).
# STEP starts the tasks: srun (the default) or `spiderflow launch ... --`.
write_rank_script() {
    local dir=$1 step=${2:-srun}
    cat >"$dir/train.sh" <<SCRIPT
#!/bin/bash
echo "\$SLURM_CLUSTER_NAME \$SPIDERFLOW_XJOB_PART \$SPIDERFLOW_RANK_BASE \$SPIDERFLOW_WORLD_SIZE \$MASTER_ADDR:\$MASTER_PORT" >$dir/batch-\$SLURM_CLUSTER_NAME.txt
echo "\$SPIDERFLOW_TP \$SPIDERFLOW_PP \$SPIDERFLOW_DP \$SPIDERFLOW_CLUSTERS \$SPIDERFLOW_ATTEMPT" >$dir/plan-\$SLURM_CLUSTER_NAME.txt
$step bash -c 'echo "\$SLURM_CLUSTER_NAME \$RANK \$WORLD_SIZE \$MASTER_ADDR:\$MASTER_PORT \$SLURM_PROCID \$(date +%s.%N)" >$dir/rank-\$RANK.txt'
sleep 300
SCRIPT
}
# ranks_on_their_clusters XJOB DIR: every part's ranks ran on that part's cluster
ranks_on_their_clusters() {
    xjob "$1" | python3 -c "
import json, sys
b = json.load(sys.stdin)
for p in b['parts']:
    for r in range(p['first_rank'], p['first_rank'] + p['ranks']):
        c = open('$2/rank-%d.txt' % r).read().split()[0]
        if c != p['cluster']: sys.exit('rank %d on %s, not %s' % (r, c, p['cluster']))"
}
# expect_one_world XJOB DIR WORLD: the rank files every part's srun step wrote to DIR form one
# world: ranks 0..WORLD-1, each part's on its own cluster in plan order, one WORLD_SIZE and
# MASTER_ADDR:MASTER_PORT everywhere, SLURM_PROCID the global rank.
expect_one_world() {
    local x=$1 dir=$2 world=$3 ranks
    all_ranks() { [ "$(ls "$dir" | grep -c '^rank-')" = "$world" ]; }
    within 30 all_ranks
    ranks=$(cat "$dir"/rank-*.txt 2>/dev/null | awk '{print $2}' | sort -n | tr '\n' ' ')
    expect "the parts' srun steps form one world of ranks 0-$((world - 1)) (got: $ranks)" test "$ranks" = "$(seq 0 $((world - 1)) | tr '\n' ' ')"
    expect "... each part's ranks run on its own cluster, in plan order" ranks_on_their_clusters "$x" "$dir"
    expect "... every rank has WORLD_SIZE $world and one MASTER_ADDR:MASTER_PORT" \
        test "$(awk '{print $3, $4}' "$dir"/rank-*.txt | sort -u | wc -l) $(awk '{print $3}' "$dir"/rank-*.txt | sort -u)" = "1 $world"
    expect "... SLURM_PROCID is the global rank in every part" test "$(awk '$2 != $5' "$dir"/rank-*.txt | wc -l)" = 0
}
# part_starts 'GLOB' FIELD SINCE: from rank files whose first word is the cluster and whose FIELD-th
# (from 0) a start time: "seconds from SINCE to the last part's first rank, the skew between the
# parts' first ranks".
part_starts() {
    python3 -c "
import glob
first = {}
for f in glob.glob('$1'):
    w = open(f).read().split()
    first[w[0]] = min(first.get(w[0], float(w[$2])), float(w[$2]))
print(f'{max(first.values()) - $3:.2f} {max(first.values()) - min(first.values()):.2f}')"
}
# start_skew DIR: seconds between the first rank lines of the earliest and latest cluster
start_skew() { part_starts "$1/rank-*.txt" 5 0 | cut -d' ' -f2; }
