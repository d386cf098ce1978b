#!/bin/bash
# The evaluation's quick part (bench/federation_eval.sh --part quick: 16 decentralized sites, 40
# jobs, two seeds, four policies with the oracle among them) and the report it writes: its
# shape, not its numbers (the figures depend on this machine's speed: decisions are charged
# their wall time). Needs gnuplot; skips (77) without it.
set -uo pipefail
src=${SF_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${SF_BUILDDIR:-$(pwd)}
FAILS=0
. "$src/tests/integration/checks.sh"   # expect, ok, not_ok
command -v gnuplot >/dev/null || { echo "# skip: gnuplot missing"; exit 77; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

bash "$src/bench/federation_eval.sh" --part quick "$build" "$out" >"$out/eval.log" 2>&1
rc=$?
expect "federation_eval.sh --part quick ran (exit $rc)" test "$rc" = 0
[ "$rc" = 0 ] || { tail -20 "$out/eval.log"; exit 1; }
report=$out/README.md
has() { grep -qE -- "$1" "$report"; }
for section in "## Results" "### decentralized, 16 sites, offered load 0.9" "## Targets" \
               "## Against what sites run today" "## Where the planners differ most" "## Plots"; do
    expect "the report has '$section'" has "^$section\$"
done
for p in spinsearch slurm-federation greedy-atlas oracle; do
    expect "a results row for $p over both seeds, with its achieved utilisation" has "^\| $p \| 2 \| [0-9]+ \([0-9]+-[0-9]+\)% \|"
done
expect "spinsearch's row gives the share of its plans held back and of its jobs, from the runs' held counts" \
    has "^\| spinsearch \| 2 \|.*\| [0-9]+% \([0-9]+% of jobs\) \|$"
expect "the JCT target against the best published baseline, with its interval and verdict" \
    has "^\| avg JCT at least 1.3x lower \| dec16, 0.9 \| spinsearch \| greedy-atlas \(best published\) \| [0-9.]+x \[[0-9.]+, [0-9.]+\] lower \| 1.3x \| (yes|no) \|$"
expect "the throughput target likewise" has "^\| throughput at least 1.25x higher \| dec16, 0.9 .* \| (yes|no) \|$"
expect "the oracle target likewise" has "^\| avg JCT within 2% of the oracle \| dec16, 0.9 \| spinsearch \| oracle \| [0-9.]+x \[[0-9.]+, [0-9.]+\]"
expect "three decisions where the planners differ most, each with its plans" \
    test "$(grep -cE '^[1-3]\. \*\*dec16, load 0.9, seed [12], job j[0-9]+\*\*' "$report")" = 3
# The intervals hold their point estimate.
bad=$(grep -oE '[0-9.]+x \[[0-9.]+, [0-9.]+\]' "$report" | awk -F'[][x, ]+' '$1 < $2 - 1e-9 || $1 > $3 + 1e-9' | head -3)
expect "every interval holds its estimate (${bad:-all do})" test -z "$bad"
expect "figures.csv has its header and a row per figure" \
    bash -c "head -1 '$out/figures.csv' | grep -qx 'federation,offered_load,seed,policy,metric,value,ci_low,ci_high' && [ \$(wc -l < '$out/figures.csv') -gt 10 ]"
expect "the JCT plot is written" test -s "$out/jct-cdf-dec16-L0.9.svg"
expect "every run's summary, decisions and held counts are there (4 runs of two policies)" \
    test "$(ls "$out"/runs/summary-*.csv | wc -l) $(ls "$out"/runs/decisions-*.csv | wc -l) $(ls "$out"/runs/held-*.csv | wc -l)" = "4 4 4"
expect "each run's held counts name the jobs behind the plans" \
    test -z "$(grep -L -x 'policy,placements_planned,held,jobs_planned,jobs_held' "$out"/runs/held-*.csv)"
# A second run finds the runs done and only rewrites the report.
bash "$src/bench/federation_eval.sh" --part quick "$build" "$out" >"$out/eval2.log" 2>&1
expect "a second run reuses the finished runs" test "$(grep -c 'done before' "$out/eval2.log")" = 4
[ "$FAILS" = 0 ]
