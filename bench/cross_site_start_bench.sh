#!/bin/bash
# How fast a cross-site job starts, and how together: two real Slurm clusters on localhost
# (alpha 2 nodes, beta 3, 8 fake GPUs each), the broker and an agent per cluster at a 1 s
# interval (tests/integration/federation.sh). Each round submits with plain sbatch on alpha a job
# of 32 GPUs (more than alpha's 16: it runs on both), waits for every rank of both parts' srun
# step to print, then cancels it; then the same job whose script starts its ranks with
# `spiderflow launch` (the parts' launchers meet at a start barrier first); and, as the baseline,
# a plain one-cluster sbatch of the same srun step on alpha's 2 nodes. Prints, over the rounds:
#   sbatch to every part's first rank running, against the plain job's sbatch to running;
#   the start skew between the parts' first ranks (plain srun, and spiderflow launch), against
#   the 2 s target.
# The broker's coalloc_lead (4 s here; 30 s by default) puts a floor under the first figure:
# the common start is never sooner, so that every cluster has time to reserve.
# DEFAULTS=1 runs at what a site gets without tuning instead: SpiderFlow's shipped defaults
# (agent interval 5 s, coalloc_lead 30 s, ...) and Slurm's own KillWait and sched_interval
# (bench/cross_site_setup.sh, shared with bench/requeue_bench.sh).
# Usage (as root, from the build dir): [DEFAULTS=1] bench/cross_site_start_bench.sh [ROUNDS]
set -u
ROUNDS=${1:-5}
case "$ROUNDS" in '' | *[!0-9]*) echo "usage: $0 [ROUNDS]" >&2; exit 2 ;; esac
SRC=$(cd "$(dirname "$0")/.." && pwd)
. "$SRC/bench/cross_site_setup.sh"
: >"$SF_TMP/cross.txt"
: >"$SF_TMP/launch.txt"
: >"$SF_TMP/plain.txt"
for round in $(seq "$ROUNDS"); do
    D=$SF_TMP/round-$round
    mkdir -p "$D/plain"
    # Baseline: one cluster, the same srun step, no co-allocation.
    t0=$(date +%s.%N)
    on alpha sbatch -N2 --gpus-per-node=8 --ntasks-per-node=8 -o /dev/null \
        --wrap "srun bash -c 'date +%s.%N >$D/plain/\$SLURM_PROCID'; sleep 300" >/dev/null
    first_plain() { [ -s "$D/plain/0" ]; }
    within 60 first_plain || { echo "round $round: the plain job never ran" >&2; exit 1; }
    python3 -c "print(min(float(open(f).read()) for f in __import__('glob').glob('$D/plain/*')) - $t0)" >>"$SF_TMP/plain.txt"
    on alpha scancel -u root
    within 30 gone alpha
    # The cross-site job: its ranks started by plain srun, then by spiderflow launch.
    for step in srun launch; do
        S=$D/$step
        mkdir -p "$S"
        if [ "$step" = srun ]; then write_rank_script "$S"; else write_rank_script "$S" "$SF_BUILDDIR/spiderflow launch --"; fi
        t0=$(date +%s.%N)
        home=$(on alpha sbatch --parsable --llm-model=llama3-8b --llm-global-batch=64 --gpus=32 -o /dev/null "$S/train.sh" 2>"$S/sbatch.err")
        [ -n "$home" ] || { echo "round $round: sbatch refused: $(cat "$S/sbatch.err")" >&2; exit 1; }
        all_ranks() { [ "$(ls "$S" | grep -c '^rank-')" = 32 ]; }
        within 180 all_ranks || { echo "round $round: the cross-site job ($step) never ran on both clusters" >&2; exit 1; }
        part_starts "$S/rank-*.txt" 5 "$t0" >>"$SF_TMP/$([ "$step" = srun ] && echo cross || echo launch).txt"
        on alpha scancel "$home"
        within 60 gone alpha; within 60 gone beta; within 30 no_reservation_left
    done
    echo "round $round: srun $(tail -1 "$SF_TMP/cross.txt"), launch $(tail -1 "$SF_TMP/launch.txt") (sbatch to running, skew), plain $(tail -1 "$SF_TMP/plain.txt")" >&2
done
rm -f /root/slurm-*.out /root/spiderflow-alpha_*.out 2>/dev/null
python3 - "$SF_TMP/cross.txt" "$SF_TMP/plain.txt" "$SETTINGS" "$SF_TMP/launch.txt" <<'PY'
import statistics, sys
cross = [tuple(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
plain = [float(l) for l in open(sys.argv[2]) if l.strip()]
launch = [tuple(map(float, l.split())) for l in open(sys.argv[4]) if l.strip()]
run = [c[0] for c in cross]
skew = [c[1] for c in cross]
launch_run = [c[0] for c in launch]
launch_skew = [c[1] for c in launch]
p50 = statistics.median
print(f"cross-site start, {len(cross)} rounds, two localhost clusters (alpha 16 GPUs + beta 24), 32-GPU job, {sys.argv[3]}")
print(f"{'figure':48} {'p50':>8} {'max':>8} {'baseline':>10} {'ratio':>7}")
print(f"{'sbatch to every part running (s)':48} {p50(run):8.2f} {max(run):8.2f} {p50(plain):10.2f} {p50(run) / p50(plain):7.2f}  (baseline: one-cluster sbatch)")
print(f"{'start skew between the parts, plain srun (s)':48} {p50(skew):8.2f} {max(skew):8.2f} {2.0:10.2f} {max(skew) / 2.0:7.2f}  (baseline: the 2 s target; under 1 meets it)")
print(f"{'sbatch to every part running, launch (s)':48} {p50(launch_run):8.2f} {max(launch_run):8.2f} {p50(plain):10.2f} {p50(launch_run) / p50(plain):7.2f}  (spiderflow launch: the barrier waits for the last part)")
print(f"{'start skew, spiderflow launch barrier (s)':48} {p50(launch_skew):8.2f} {max(launch_skew):8.2f} {2.0:10.2f} {max(launch_skew) / 2.0:7.2f}  (baseline: the 2 s target)")
PY
