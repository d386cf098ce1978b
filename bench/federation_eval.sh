#!/usr/bin/env bash
# The federation evaluation (doc/evaluation): every placement policy on the same Helios-shaped
# traces over a decentralized federation (`spiderflow topo generate --profile decentralized`: 32
# sites of 16-256 mixed GPUs in DTFM's measured regions), at offered loads 0.6, 0.9 and 1.2
# inside the measurement window (doc/simulate.md), several seeds each; then the report, with a
# 95% bootstrap interval on every ratio (bench/federation_report.py).
#
# Usage: bench/federation_eval.sh [--part PART] [BUILD_DIR] [OUT_DIR]   (defaults: . and doc/evaluation)
# The whole evaluation does not fit one 75-minute run on 2 cores, so it comes in parts, and the
# longer parts one load at a time (SF_EVAL_LOADS); each adds its runs to OUT_DIR/runs and the
# report is rewritten from every run there. Times measured at stops 48-49 (5 seeds, 2 cores):
#   main      (default; about 30 min a load: 0.6 alone 30 min, 0.9 and 1.2 together 68) the
#             decentralized federation at the three loads: Slurm alone, Slurm federation,
#             spinsearch, greedy and the three baselines as published
#   searches  (about 55 min a load, 10-11 min a seed) our other searches on the same traces at
#             0.9 and 1.2: global-ilp, genetic, first-fit
#   oracle    (about 20 min a seed) the oracle (per decision the fastest plan any planner policy
#             finds, decisions free) on the main part's traces at 0.9. Its decisions cost no
#             simulated time, so two commands with different SF_EVAL_SEEDS may run side by side,
#             one a core, and `--part report` after both
#   overhead  (about 2 min) decision times at 64 decentralized sites: spinsearch, global-ilp and
#             genetic on one trace of 150 jobs at 0.9 (every decision's time, not the queue's outcome)
#   worldwide (about 4.5 min a seed) the 8-region example (contrib/topologies/worldwide-8.json)
#             at 0.9: the main part's policies
#   quick     (under 5 min) 16 sites, 40 jobs, two seeds, four policies: the report's shape, in
#             make check (tests/integration/test_federation_eval_quick.sh)
#   report    no runs: the held counts from every decision log there, and the report from what
#             OUT_DIR/runs holds
# Environment: SF_EVAL_SEEDS (default "1 2 3 4 5"), SF_EVAL_JOBS (400: at least 300 finish inside
# each run's window), SF_EVAL_LIMIT (each planner call's limit, 0.3 s), SF_EVAL_LOADS.
# Each decision's wall time passes on the simulated clock: run it on a quiet machine. Two policies
# run side by side, one per core. Not a test: it prints what it measures and asserts nothing.
set -euo pipefail
part=main
if [ "${1:-}" = "--part" ]; then part=$2; shift 2; fi
case "$part" in main | searches | oracle | overhead | worldwide | quick | report) ;;
    *) echo "federation_eval: unknown part '$part' (main, searches, oracle, overhead, worldwide, quick, report)" >&2; exit 2 ;;
esac
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-.}" && pwd)
out=${2:-$src/doc/evaluation}
bin=$build/spiderflow
[ -x "$bin" ] || { echo "federation_eval: $bin not built (make first)" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "federation_eval: gnuplot missing (contrib/scripts/install-deps.sh installs it)" >&2; exit 2; }
mkdir -p "$out/runs"

jobs=${SF_EVAL_JOBS:-400}
limit=${SF_EVAL_LIMIT:-0.3}
read -r -a seeds <<<"${SF_EVAL_SEEDS:-1 2 3 4 5}"

# topology NAME: the federation's file, generated once into OUT_DIR.
topology() {
    case $1 in
        dec*) [ -f "$out/topology-$1.json" ] ||
                  "$bin" topo generate --profile decentralized --clusters "${1#dec}" --seed 1 -o "$out/topology-$1.json" >/dev/null
              echo "$out/topology-$1.json" ;;
        ww8) echo "$src/contrib/topologies/worldwide-8.json" ;;
    esac
}

# held_counts DECISIONS_CSV: per policy, the placements that found a plan and those of them the
# scheduler held the job back from (the `held` column), and the jobs behind them (a waiting job is
# planned again at every pass), kept where the decisions file is not (written for every log there
# after each part's runs).
held_counts() {
    /usr/bin/env python3 - "$1" <<'PY'
import collections, csv, sys
n = collections.Counter()
held = collections.Counter()
jobs = collections.defaultdict(set)
jobs_held = collections.defaultdict(set)
for d in csv.DictReader(open(sys.argv[1])):
    if d["kind"] == "placement" and d["plan"]:
        n[d["policy"]] += 1
        jobs[d["policy"]].add(d["job"])
        if d.get("held") == "yes":
            held[d["policy"]] += 1
            jobs_held[d["policy"]].add(d["job"])
print("policy,placements_planned,held,jobs_planned,jobs_held")
for p in n:
    print(f"{p},{n[p]},{held[p]},{len(jobs[p])},{len(jobs_held[p])}")
PY
}
# run FED LOAD SEED POLICIES_A POLICIES_B: one trace, two lists of policies side by side.
run() {
    local fed=$1 load=$2 seed=$3 topo trace tag h pids=()
    topo=$(topology "$fed")
    trace=$out/runs/trace-$fed-L$load-s$seed.csv
    [ -f "$trace" ] || "$bin" simulate gen-trace --topology "$topo" --jobs "$jobs" --seed "$seed" --load "$load" -o "$trace" 2>/dev/null
    shift 3
    for h in "$@"; do
        tag=$fed-L$load-s$seed-${h//,/+}
        if [ -f "$out/runs/summary-$tag.csv" ]; then echo "== $tag: done before"; continue; fi
        echo "== $fed, offered load $load, seed $seed: $h ($jobs jobs)"
        # Written under a temporary name: an interrupted run is never read as a finished one.
        ( "$bin" simulate --topology "$topo" --trace "$trace" --seed "$seed" --policy "$h" \
              --planner-time-limit "$limit" --check --no-progress \
              --jobs-csv "$out/runs/.jobs-$tag.csv" --decisions-csv "$out/runs/.decisions-$tag.csv" \
              --summary-csv "$out/runs/.summary-$tag.csv" >"$out/runs/run-$tag.txt" &&
          for k in jobs decisions summary; do mv "$out/runs/.$k-$tag.csv" "$out/runs/$k-$tag.csv"; done &&
          # The admissions alone, what the report compares where a decisions file is left out,
          # without what was free (the whole federation: an admission plans on it empty).
          awk -F, -v OFS=, 'NR == 1 || $4 == "admission" { if (NR > 1) $7 = ""; print }' \
              "$out/runs/decisions-$tag.csv" >"$out/runs/admissions-$tag.csv" ) &
        pids+=($!)
        if [ ${#pids[@]} = 2 ]; then wait "${pids[@]}"; pids=(); fi
    done
    [ ${#pids[@]} = 0 ] || wait "${pids[@]}"
}

t0=$SECONDS
case $part in
    main)
        read -r -a loads <<<"${SF_EVAL_LOADS:-0.6 0.9 1.2}"
        for load in "${loads[@]}"; do
            for s in "${seeds[@]}"; do
                # The slow ones (the published genetic and ILP) one per core, the quick ones beside.
                run dec32 "$load" "$s" "genetic-dtfm,slurm-alone,slurm-federation,greedy" "ilp-oblivious,spinsearch,greedy-atlas"
            done
        done ;;
    searches)
        read -r -a loads <<<"${SF_EVAL_LOADS:-0.9 1.2}"
        for load in "${loads[@]}"; do for s in "${seeds[@]}"; do run dec32 "$load" "$s" "global-ilp" "genetic,first-fit"; done; done ;;
    oracle)
        read -r -a loads <<<"${SF_EVAL_LOADS:-0.9}"
        for load in "${loads[@]}"; do for s in "${seeds[@]}"; do run dec32 "$load" "$s" "oracle"; done; done ;;
    overhead)
        jobs=${SF_EVAL_JOBS:-150}
        run dec64 0.9 1 "global-ilp,spinsearch" "genetic" ;;
    worldwide)
        for s in "${seeds[@]}"; do run ww8 0.9 "$s" "spinsearch,slurm-federation,slurm-alone,greedy-atlas" "genetic-dtfm,ilp-oblivious,greedy"; done ;;
    quick)
        jobs=${SF_EVAL_JOBS:-40}
        read -r -a seeds <<<"${SF_EVAL_SEEDS:-1 2}"
        for s in "${seeds[@]}"; do run dec16 0.9 "$s" "spinsearch,slurm-federation" "greedy-atlas,oracle"; done ;;
esac
[ "$part" = report ] || echo "federation_eval: part $part took $((SECONDS - t0)) s"
# The held counts of every decision log there, this part's runs and those before (an earlier
# run's log then counts jobs too), kept for when a log is left out of the repository.
for d in "$out"/runs/decisions-*.csv; do
    [ -f "$d" ] || continue
    b=$(basename "$d")
    held_counts "$d" >"$out/runs/.held-$$" && mv "$out/runs/.held-$$" "$out/runs/held-${b#decisions-}"
done
/usr/bin/env python3 "$src/bench/federation_report.py" "$out" --limit "$limit"
echo "federation_eval: report in $out/README.md"
