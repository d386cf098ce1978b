#!/usr/bin/env bash
# The real-daemon tests that have timing in them, several times in a row, with stress-ng keeping
# every core busy beside them: what CI's shared 2-core machines do to a test that only holds when
# the machine is idle. Not part of .ci/run (one round takes about as long as make check); run it
# after changing a test's waits or tolerances.
#   contrib/scripts/check-under-load.sh [BUILD_DIR] [ROUNDS]    (defaults: _build/ci or ., 3)
#   SF_LOAD_CPUS=N     stress-ng workers (default: the number of cores)
#   SF_LOAD_TESTS="…"  the tests to run (default: probes, requeue, the torch world, the federation
#                      tests and the fault tests)
# Prints each round's result per test and exits 1 when any test failed in any round.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-}
if [ -z "$build" ]; then build=$top/_build/ci; [ -f "$build/Makefile" ] || build=.; fi
build=$(cd "$build" && pwd)
rounds=${2:-3}
case "$rounds" in '' | *[!0-9]*) echo "usage: $0 [BUILD_DIR] [ROUNDS]" >&2; exit 2 ;; esac
[ -f "$build/Makefile" ] || { echo "check-under-load: $build has no Makefile (configure and make first)" >&2; exit 2; }
command -v stress-ng >/dev/null || { echo "check-under-load: needs stress-ng (apt-get install stress-ng)" >&2; exit 2; }
tests=${SF_LOAD_TESTS:-"tests/integration/test_probe.sh tests/integration/test_probe_jobs.sh tests/integration/test_requeue.sh
  tests/integration/test_torch_world.sh tests/integration/test_federation_agents.sh tests/integration/test_federation_three.sh
  tests/integration/test_fault_agent_cut.sh tests/integration/test_fault_broker_failover.sh tests/integration/test_fault_ctld_agent.sh"}

stress-ng --cpu "${SF_LOAD_CPUS:-$(nproc)}" --timeout 0 --quiet &
load=$!
trap 'kill "$load" 2>/dev/null; wait "$load" 2>/dev/null' EXIT
failed=0
for round in $(seq "$rounds"); do
    start=$(date +%s)
    # One test at a time, as CI runs them beside its other work; each test's log stays in the build dir.
    ( cd "$build" && make -s check TESTS="$(echo $tests)" >/dev/null 2>&1 )
    rc=$?
    echo "round $round of $rounds ($(($(date +%s) - start)) s, load $(cut -d' ' -f1 /proc/loadavg)):"
    for t in $tests; do
        result=$(sed -n 's/^:test-result: //p' "$build/$t.trs" 2>/dev/null)
        echo "  ${result:-NONE} $t"
        case "$result" in PASS | SKIP) ;; *) failed=1 ;; esac
    done
    [ $rc -eq 0 ] || failed=1
done
exit $failed
