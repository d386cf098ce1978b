#!/bin/bash
# How fast a cross-site job runs again after a remote node is lost, against its first start, and
# how together its parts start each time: the two localhost clusters of
# bench/cross_site_start_bench.sh (alpha 2 nodes, beta 3, 8 fake GPUs a node). Each round submits
# with plain sbatch on alpha a 32-GPU job with --llm-on-failure=requeue whose ranks
# (bench/lost_peer_rank.py) hold a connection to rank 0 and fail when a peer is gone, as NCCL's
# and gloo's do; once every rank runs, one of beta's nodes in the job is lost (its slurmd, its
# slurmstepd and its tasks killed -9, and slurmctld hears nothing more from it); the job is
# queued again, planned anew without that node (alpha's 2 nodes and beta's other 2) and every
# rank of its second run starts. Prints, over the rounds:
#   sbatch to every part's first rank running (the first start);
#   the loss to every part's first rank of the second run running (requeue to running), and its
#   ratio to the first start in the same round, against the 2x target;
#   the start skew between the parts' first ranks in both runs, against the 2 s target;
# and each round's stages from the broker's history. Settings as in cross_site_setup.sh: the
# integration tests' by default, DEFAULTS=1 for what a site gets without tuning.
# Usage (as root, from the build dir): [DEFAULTS=1] bench/requeue_bench.sh [ROUNDS]
set -u
ROUNDS=${1:-5}
case "$ROUNDS" in '' | *[!0-9]*) echo "usage: $0 [ROUNDS]" >&2; exit 2 ;; esac
SRC=$(cd "$(dirname "$0")/.." && pwd)
. "$SRC/bench/cross_site_setup.sh"
rank_program=$SRC/bench/lost_peer_rank.py
ranks_of_run() { [ "$(ls "$1" | grep -c "^run-$2-rank-")" = 32 ]; }
# first_ranks DIR RUN SINCE: "seconds from SINCE to every part's first rank running, skew"
first_ranks() { part_starts "$1/run-$2-rank-*.txt" 4 "$3"; }
# lose_node CLUSTER NODE: what a lost node does to Slurm: its slurmd, the job's slurmstepd (which
# logs to that node's slurmd log) and the job's tasks on it die at once (-9).
lose_node() {
    local c=$1 n=$2 p
    p=$(cat "$SF_TMP/$c/slurmd-$n.pid")
    kill -9 "$p" 2>/dev/null
    wait "$p" 2>/dev/null  # a slurmd this shell started: reaped quietly
    for p in $(pgrep -f slurmstepd); do
        ls -l "/proc/$p/fd" 2>/dev/null | grep -q "$SF_TMP/$c/slurmd-$n.log" && kill -9 "$p" 2>/dev/null
    done
    for p in $(pgrep -f "lost_peer_rank.py $SF_TMP/"); do
        { tr '\0' '\n' <"/proc/$p/environ" | grep -qx "SLURMD_NODENAME=$n" && kill -9 "$p"; } 2>/dev/null
    done
}
# bring_back CLUSTER NODE: its slurmd started again and the node back in service.
bring_back() {
    local c=$1 n=$2
    sf_exec slurmd -D -N "$n" -f "$SF_TMP/$c/slurm.conf" >>"$SF_TMP/$c/slurmd-$n.out" 2>&1 &
    SF_PIDS+=($!)
    idle() { on "$c" sinfo -h -n "$n" -o %t | grep -qx idle; }
    down() { on "$c" sinfo -h -n "$n" -o %t | grep -q '^down'; }
    within 20 idle || { down && on "$c" scontrol update nodename="$n" state=resume; }
    within 60 idle || { echo "requeue_bench: $c's $n did not come back: $(on "$c" sinfo -h -n "$n" -o '%t %E')" >&2; exit 1; }
}

: >"$SF_TMP/rounds.txt"
for round in $(seq "$ROUNDS"); do
    D=$SF_TMP/round-$round
    mkdir -p "$D"
    printf '#!/bin/bash\nsrun /usr/bin/python3 %q %q\n' "$rank_program" "$D" >"$D/train.sh"
    load=$(cut -d' ' -f1 /proc/loadavg)
    t0=$(date +%s.%N)
    home=$(on alpha sbatch --parsable --llm-model=llama3-8b --llm-global-batch=64 --gpus=32 --llm-on-failure=requeue \
        -o "$D/home.out" "$D/train.sh" 2>"$D/sbatch.err")
    [ -n "$home" ] || { echo "round $round: sbatch refused: $(cat "$D/sbatch.err")" >&2; exit 1; }
    xid=alpha:$home
    within 240 ranks_of_run "$D" 1 || { echo "round $round: the first run never had every rank running" >&2; exit 1; }
    first=$(first_ranks "$D" 1 "$t0")
    # Lost once the broker has the run as running: a run that never started is not requeued.
    within 30 xjob_state_is "$xid" running || { echo "round $round: the broker never had the job running" >&2; exit 1; }
    # A node of beta's part that holds neither rank 0 nor the batch script: the last one.
    lost=$(xjob_field "$xid" "[p['node_list'] for p in b['parts'] if p['cluster'] == 'beta'][0]" | tr -d "[]'," | awk '{print $NF}')
    [ -n "$lost" ] || { echo "round $round: no part on beta" >&2; exit 1; }
    t_kill=$(date +%s.%N)
    lose_node beta "$lost"
    if ! within 400 ranks_of_run "$D" 2; then
        echo "round $round: the second run never had every rank running; the job:" >&2
        "$SF_BUILDDIR/spiderflow" jobs --broker "$URL" --token-file "$SF_TMP/reader.token" "$xid" >&2
        exit 1
    fi
    again=$(first_ranks "$D" 2 "$t_kill")
    "$SF_BUILDDIR/spiderflow" jobs --broker "$URL" --token-file "$SF_TMP/reader.token" "$xid" >"$D/jobs.txt" 2>&1
    echo "$first $again $load" >>"$SF_TMP/rounds.txt"
    echo "round $round (load $load): first start $first, lost $lost, requeue to running $again (seconds, skew)" >&2
    grep -E '^  (20|run)' "$D/jobs.txt" | sed 's/^/    /' >&2
    "$SF_BUILDDIR/spiderflow" cancel --broker "$URL" --token-file "$SF_TMP/alpha/agent.token" "$xid" >/dev/null 2>&1
    on alpha scancel -u root; on beta scancel -u root
    bring_back beta "$lost"
    within 120 gone alpha; within 120 gone beta; within 60 no_reservation_left
done
rm -f /root/spiderflow-alpha_*.out 2>/dev/null
python3 - "$SF_TMP/rounds.txt" "$SETTINGS" <<'PY'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
p50 = statistics.median
first = [r[0] for r in rows]
again = [r[2] for r in rows]
ratio = [r[2] / r[0] for r in rows]
skew = [max(r[1], r[3]) for r in rows]
print(f"requeue after a lost remote node, {len(rows)} rounds, two localhost clusters, 32-GPU job, {sys.argv[2]}")
print(f"{'round':>5} {'load':>5} {'first start':>12} {'skew':>6} {'requeue':>8} {'skew':>6} {'ratio':>6}")
for i, r in enumerate(rows, 1):
    print(f"{i:5} {r[4]:5.2f} {r[0]:11.2f}s {r[1]:5.2f}s {r[2]:7.2f}s {r[3]:5.2f}s {r[2] / r[0]:6.2f}")
print(f"requeue to running / first start: p50 {p50(ratio):.2f}, max {max(ratio):.2f} (target: at most 2)")
print(f"start skew, both runs: p50 {p50(skew):.2f} s, max {max(skew):.2f} s (target: under 2 s in every run)")
PY
