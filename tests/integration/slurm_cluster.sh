#!/bin/bash
# A real Slurm cluster on localhost for integration tests: munged, slurmctld and 4 slurmd
# (8 fake GPUs each, symlinks to /dev/null), two leaf switches whose grouping disagrees with
# the node names' alphabetical order, and our plugins loaded from the build tree.
# Source it, then: sf_cluster_start; ...; sf_cluster_stop (also run by the EXIT trap).
# Needs root and the slurm/munge binaries; callers exit 77 (skip) when sf_cluster_can_run fails.

SF_BUILDDIR=${SF_BUILDDIR:-$(pwd)}
SF_SRCDIR=${SF_SRCDIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
# Our plugins and command come from the build tree, or, with SF_INSTALLED_PLUGINDIR set
# (tests/packaging), from what the packages installed: the plugins in that PluginDir (Slurm's
# own), the command on PATH.
if [ -n "${SF_INSTALLED_PLUGINDIR:-}" ]; then
    SF_SPIDERFLOW=$(command -v spiderflow || echo /usr/bin/spiderflow)
else
    SF_SPIDERFLOW=$SF_BUILDDIR/spiderflow
fi
# sf_plugin KIND FILE: the path of one of our plugins (KIND: its folder under plugins/).
sf_plugin() {
    if [ -n "${SF_INSTALLED_PLUGINDIR:-}" ]; then echo "$SF_INSTALLED_PLUGINDIR/$2"; else echo "$SF_BUILDDIR/plugins/$1/.libs/$2"; fi
}
SF_PIDS=()
SF_NODES=(a1 b1 c1 d1)          # Slurm orders them a1 b1 c1 d1 ...
SF_SWITCH_S1="a1,c1"            # ... but the switches pair a1 with c1 and b1 with d1
SF_SWITCH_S2="b1,d1"

sf_log() { echo "spiderflow-it: $*" >&2; }
. "$(dirname "${BASH_SOURCE[0]}")/checks.sh"   # sf_port_block

sf_cluster_can_run() {
    if [ "$(id -u)" != 0 ]; then sf_log "skip: needs root"; return 1; fi
    local b
    for b in munged mungekey slurmctld slurmd sbatch squeue scontrol srun; do
        if ! command -v "$b" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$b" ]; then sf_log "skip: $b missing"; return 1; fi
    done
    for b in "$(sf_plugin spank spiderflow.so)" "$(sf_plugin job_submit job_submit_spiderflow.so)"; do
        if [ ! -f "$b" ]; then sf_log "skip: $b not built"; return 1; fi
    done
    return 0
}

sf_cluster_stop() {
    local pid i
    # Newest first: slurmd before slurmctld before munged.
    for ((i = ${#SF_PIDS[@]} - 1; i >= 0; i--)); do
        pid=${SF_PIDS[$i]}
        kill "$pid" 2>/dev/null
    done
    for pid in "${SF_PIDS[@]}"; do
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null
    done
    SF_PIDS=()
    sf_port_block_release
    if [ -n "${SF_KEEP:-}" ]; then sf_log "kept $SF_TMP"; elif [ -n "${SF_TMP:-}" ] && [ -d "$SF_TMP" ]; then rm -rf "$SF_TMP"; fi
}

# Writes DIR/slurm.conf, gres.conf (SF_GPUS_PER_NODE fake GPUs per node, 8 unless set) and
# plugstack.conf (our SPANK plugin reading DIR/spiderflow.conf) for cluster NAME whose slurmctld listens on BASE and whose slurmd
# listen on BASE+1, BASE+2, ...; the caller writes topology.conf and spiderflow.conf.
# Usage: sf_write_slurm_conf DIR NAME BASE NODE...
sf_write_slurm_conf() {
    local dir=$1 name=$2 base=$3
    shift 3
    mkdir -p "$dir/state" "$dir/dev" "$dir/plans" "$dir/out"
    local g gpus=${SF_GPUS_PER_NODE:-8}
    for ((g = 0; g < gpus; g++)); do ln -sf /dev/null "$dir/dev/nvidia$g"; done
    local plugindir="$SF_BUILDDIR/plugins/job_submit/.libs:$SF_BUILDDIR/plugins/spank/.libs:/usr/lib/x86_64-linux-gnu/slurm-wlm"
    # As on a site that installed everything: our select plugin sits in PluginDir unconfigured,
    # and every client (Slurm's commands, the agent, spiderflow) loads it.
    [ -d "$SF_BUILDDIR/plugins/select/.libs" ] && plugindir="$SF_BUILDDIR/plugins/select/.libs:$plugindir"
    [ -n "${SF_INSTALLED_PLUGINDIR:-}" ] && plugindir=$SF_INSTALLED_PLUGINDIR
    # Slurm numbers tasks by leaf switch, as the plan numbers ranks: 22.05 through our
    # topology/spiderflow_tree (built with the Slurm source), 24.11 with SwitchAsNodeRank,
    # 26.05 by itself. SF_SWITCH_ORDER says whether this cluster does.
    local topology_plugin=topology/tree
    if [ -f "$(sf_plugin topology topology_spiderflow_tree.so)" ]; then
        topology_plugin=topology/spiderflow_tree
        [ -n "${SF_INSTALLED_PLUGINDIR:-}" ] || plugindir="$SF_BUILDDIR/plugins/topology/.libs:$plugindir"
    fi
    SF_SWITCH_ORDER=no
    case "$topology_plugin $(slurmctld -V 2>/dev/null)" in
        topology/spiderflow_tree*|*" slurm-wlm 2"[4-9].*|*" slurm "2[4-9].*) SF_SWITCH_ORDER=yes ;;
    esac
    cat > "$dir/slurm.conf" <<CONF
ClusterName=$name
SlurmctldHost=localhost
SlurmctldPort=$base
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$SF_TMP/munge.sock
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
PluginDir=$plugindir
PlugStackConfig=$dir/plugstack.conf
JobSubmitPlugins=spiderflow
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
TopologyPlugin=$topology_plugin
TopologyParam=SwitchAsNodeRank
GresTypes=gpu
ReturnToService=2
SlurmdParameters=config_overrides
SchedulerParameters=sched_interval=1
MinJobAge=600
InactiveLimit=0
KillWait=2
CONF
    local i=1 n
    for n in "$@"; do
        echo "NodeName=$n NodeHostname=localhost NodeAddr=127.0.0.1 Port=$((base + i)) CPUs=16 RealMemory=4000 Gres=gpu:$gpus Feature=H100-SXM State=UNKNOWN" >> "$dir/slurm.conf"
        mkdir -p "$dir/spool/$n"
        i=$((i + 1))
    done
    echo "PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP" >> "$dir/slurm.conf"
    cat > "$dir/gres.conf" <<CONF
AutoDetect=off
Name=gpu File=$dir/dev/nvidia[0-$((gpus - 1))]
CONF
    echo "required $(sf_plugin spank spiderflow.so) conf=$dir/spiderflow.conf" > "$dir/plugstack.conf"
}

# Writes the configs under $SF_TMP, on a block of ports this test owns (sf_port_block).
sf_write_configs() {
    local base
    base=$(sf_port_block) || return 1
    SF_CTLD_PORT=$base
    sf_write_slurm_conf "$SF_TMP" "sftest$$" "$base" "${SF_NODES[@]}"
    cat > "$SF_TMP/topology.conf" <<CONF
SwitchName=s1 Nodes=$SF_SWITCH_S1
SwitchName=s2 Nodes=$SF_SWITCH_S2
SwitchName=top Switches=s1,s2
CONF
    # The planner needs bandwidths Slurm's files do not hold, so the site describes the cluster in
    # our format: same nodes and switches, NICs, and on a1 two NVLink domains interleaved.
    local slots="" g
    for g in 0 1 2 3 4 5 6 7; do
        slots+="${slots:+,}{\"index\": $g, \"nvlink_domain\": $((g % 2)), \"nearest_nic\": \"mlx5_$((g % 2))\"}"
    done
    local nics='[{"name": "mlx5_0", "kind": "ib", "gbps": 200}, {"name": "mlx5_1", "kind": "ib", "gbps": 200}, {"name": "eth0", "kind": "ethernet", "gbps": 100}]'
    cat > "$SF_TMP/topology.json" <<JSON
{
  "spiderflow_topology_version": 1,
  "name": "sftest",
  "clusters": [{
    "name": "sftest$$", "region": "local", "intra_gbps": 400, "intra_latency_ms": 0.005,
    "nodes": [
      {"name": "a1", "gpus": 8, "gpu_type": "H100-SXM", "nvlink_domain": 4, "nics": $nics, "switch": "s1", "gpu_slots": [$slots]},
      {"name": "b1", "gpus": 8, "gpu_type": "H100-SXM", "nvlink_domain": 8, "nics": $nics, "switch": "s2"},
      {"name": "c1", "gpus": 8, "gpu_type": "H100-SXM", "nvlink_domain": 8, "nics": $nics, "switch": "s1"},
      {"name": "d1", "gpus": 8, "gpu_type": "H100-SXM", "nvlink_domain": 8, "nics": $nics, "switch": "s2"}
    ],
    "switches": [{"name": "s1"}, {"name": "s2"}]
  }],
  "links": []
}
JSON
    cat > "$SF_TMP/spiderflow.conf" <<CONF
# Integration test site config.
topology = $SF_TMP/topology.json
time_budget = 5
state_dir = $SF_TMP/plans
constrain_gpu_type = yes
ib_tc = 106
master_port_base = $((base + 10))
master_port_span = 40
CONF
}

# sf_run CMD...: CMD here, or inside the Debian root $SF_IN_ROOT when it is set (another Slurm
# version's daemons and commands; contrib/scripts/in-root.sh), or inside the network namespace
# $SF_IN_NETNS (a site whose link to the broker a fault test cuts: netns_link.sh). Environment
# goes in with `env`.
sf_run() {
    if [ -n "${SF_IN_NETNS:-}" ]; then nsenter --net="/run/netns/$SF_IN_NETNS" "$@"
    elif [ -n "${SF_IN_ROOT:-}" ]; then "$SF_SRCDIR/contrib/scripts/in-root.sh" "$SF_IN_ROOT" "$@"; else "$@"; fi
}
# sf_exec CMD... &: the same for a daemon started in the background, so that $! is its PID (here)
# or in-root.sh's (which passes TERM on), for stopping it by PID.
sf_exec() {
    # nsenter execs the command itself: $! stays the daemon's PID. Not `ip netns exec`, which
    # mounts a sysfs of its own without /sys/fs/cgroup, where slurmd will not start.
    if [ -n "${SF_IN_NETNS:-}" ]; then exec nsenter --net="/run/netns/$SF_IN_NETNS" "$@"; fi
    if [ -n "${SF_IN_ROOT:-}" ]; then exec "$SF_SRCDIR/contrib/scripts/in-root.sh" "$SF_IN_ROOT" "$@"; else exec "$@"; fi
}

# munged for every cluster of the test, on $SF_TMP/munge.sock.
sf_start_munge() {
    mungekey --create --keyfile="$SF_TMP/munge.key" >/dev/null 2>&1 || { sf_log "mungekey failed"; return 1; }
    chmod 600 "$SF_TMP/munge.key"
    munged --force --socket="$SF_TMP/munge.sock" --key-file="$SF_TMP/munge.key" --pid-file="$SF_TMP/munged.pid" \
        --log-file="$SF_TMP/munged.log" --seed-file="$SF_TMP/munge.seed" --foreground >"$SF_TMP/munged.out" 2>&1 &
    SF_PIDS+=($!)
    for _ in $(seq 50); do [ -S "$SF_TMP/munge.sock" ] && break; sleep 0.1; done
}

# slurmctld and one slurmd per node for the cluster configured in DIR; returns when every node
# is idle. Usage: sf_start_slurm DIR NODE...
sf_start_slurm() {
    local dir=$1
    shift
    # job_submit finds $dir/spiderflow.conf beside the slurm.conf slurmctld reads (no SPIDERFLOW_CONF
    # needed; a test that exports one, as a unit file may, still wins).
    sf_exec slurmctld -D -i -f "$dir/slurm.conf" >"$dir/slurmctld.out" 2>&1 &
    SF_PIDS+=($!)
    local n
    for n in "$@"; do
        sf_exec slurmd -D -N "$n" -f "$dir/slurm.conf" >"$dir/slurmd-$n.out" 2>&1 &
        SF_PIDS+=($!)
    done
    for _ in $(seq 150); do
        local idle
        idle=$(sf_run env SLURM_CONF="$dir/slurm.conf" sinfo -h -N -o '%N %t' 2>/dev/null | grep -c ' idle')
        [ "$idle" = "$#" ] && return 0
        sleep 0.2
    done
    sf_log "cluster in $dir did not come up; sinfo:"; sf_run env SLURM_CONF="$dir/slurm.conf" sinfo -N 2>&1 >&2
    tail -20 "$dir/slurmctld.log" >&2
    return 1
}

sf_cluster_start() {
    SF_TMP=$(mktemp -d /tmp/sf-slurm-it.XXXXXX)
    chmod 755 "$SF_TMP"
    trap sf_cluster_stop EXIT
    sf_write_configs
    export SLURM_CONF=$SF_TMP/slurm.conf
    export SPIDERFLOW_CONF=$SF_TMP/spiderflow.conf
    sf_start_munge || return 1
    sf_start_slurm "$SF_TMP" "${SF_NODES[@]}"
}

# Waits until a job leaves the queue; prints its final state.
sf_wait_job() {
    local id=$1 state
    for _ in $(seq 300); do
        state=$(scontrol show job "$id" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | cut -d= -f2)
        case "$state" in
            COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE) echo "$state"; return 0 ;;
        esac
        sleep 0.2
    done
    echo "${state:-UNKNOWN}"
    return 1
}
