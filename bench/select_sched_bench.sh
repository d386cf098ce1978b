#!/bin/bash
# slurmctld's scheduling cost with select/spiderflow_cons_tres + sched/spiderflow over
# select/cons_tres + sched/backfill, on the same real cluster (tests/integration/
# select_sched_cluster.sh: 8 nodes, 4 leaf switches) holding the same queue: every node busy and
# PENDING jobs waiting, half of them planned (--llm-plan, 4 nodes in 2 stages), half plain
# (-N2). sdiag's main-scheduler and backfill mean cycle times over a WINDOW-second window
# (sched_interval=1, bf_interval=1). Target: ours / cons_tres alone <= 1.2 for both. Both setups
# measured in this one run, interleaved ROUNDS times; the ratio is of the medians.
# Usage (as root, from the build dir): [ROUNDS=2] bench/select_sched_bench.sh [PENDING] [WINDOW]
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
export SF_BUILDDIR=${SF_BUILDDIR:-$(pwd)}
PENDING=${1:-1000}
WINDOW=${2:-30}
ROUNDS=${ROUNDS:-2}
. "$SRC/tests/integration/select_sched_cluster.sh"
sel_start_munge_and_broker
sed -i "s/^SchedulerParameters=.*/SchedulerParameters=sched_interval=1,bf_interval=1,default_queue_depth=$((PENDING + 100)),bf_max_job_test=$((PENDING + 100))/" "$D/slurm.conf"

sdiag_mean() {  # sdiag_mean SECTION_REGEX: "Mean cycle" of the first section matching
    sdiag | awk -v sec="$1" '$0 ~ sec {on = 1} on && /Mean cycle:/ {print $3; exit}'
}
measure() {  # measure LABEL SELECT SCHED -> "main_us backfill_us" on stdout
    local n i
    use_plugins "$2" "$3"
    rm -rf "$D/state" && mkdir -p "$D/state"
    # measure runs in a subshell: the daemons it started are its to stop, also when they fail.
    sf_start_slurm "$D" "${SEL_NODES[@]}" >&2 || { stop_slurm; exit 1; }
    for n in "${SEL_NODES[@]}"; do submit -w "$n" -N1 --gres=gpu:8 --exclusive -t 60 >/dev/null; done
    for ((i = 0; i < PENDING; i++)); do
        if ((i % 2)); then submit -N2 --gres=gpu:8 -t 30 >/dev/null; else submit --llm-plan="$SF_TMP/plan.json" --gpus=32 -t 30 >/dev/null; fi
        ((i % 200 == 199)) && echo "  $1: $((i + 1))/$PENDING jobs queued" >&2
    done
    sdiag --reset >/dev/null
    sleep "$WINDOW"
    local figures
    figures="$(sdiag_mean '^Main schedule statistics') $(sdiag_mean '^Backfilling stats')"
    scancel -u root
    sleep 1
    stop_slurm
    # Only now: the caller reads this line and starts the next setup, which must not overlap
    # this one's shutdown.
    echo "$figures"
}

base_main=(); base_bf=(); ours_main=(); ours_bf=()
for ((r = 1; r <= ROUNDS; r++)); do
    read -r m b < <(measure base select/cons_tres sched/backfill)
    [ -n "${b:-}" ] || { echo "select_sched_bench: no sdiag figures (cluster did not come up?)" >&2; exit 1; }
    base_main+=("$m"); base_bf+=("$b")
    read -r m b < <(measure ours select/spiderflow_cons_tres sched/spiderflow)
    [ -n "${b:-}" ] || { echo "select_sched_bench: no sdiag figures (cluster did not come up?)" >&2; exit 1; }
    ours_main+=("$m"); ours_bf+=("$b")
    echo "round $r: main cycle ${base_main[-1]} us vs ${ours_main[-1]} us; backfill cycle ${base_bf[-1]} us vs ${ours_bf[-1]} us" >&2
done
python3 - "${base_main[*]}" "${ours_main[*]}" "${base_bf[*]}" "${ours_bf[*]}" "$PENDING" "$WINDOW" <<'PY'
import statistics, sys
bm, om, bb, ob = ([float(x) for x in a.split()] for a in sys.argv[1:5])
pending, window = sys.argv[5], sys.argv[6]
print(f"slurmctld scheduling cost, {pending} pending jobs (half planned), {window} s windows, medians of {len(bm)} rounds")
print(f"{'cycle':<10} {'cons_tres+backfill':>20} {'spiderflow pair':>17} {'ratio':>7}  target")
for name, b, o in (("main", bm, om), ("backfill", bb, ob)):
    mb, mo = statistics.median(b), statistics.median(o)
    ratio = mo / mb if mb else float("nan")
    print(f"{name:<10} {mb:>17.0f} us {mo:>14.0f} us {ratio:>6.2f}x  <= 1.2x {'met' if ratio <= 1.2 else 'NOT met'}")
PY
