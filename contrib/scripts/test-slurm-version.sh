#!/usr/bin/env bash
# Builds SpiderFlow's Slurm-facing programs against another Slurm version and runs the real-Slurm
# integration tests there: a Debian root per version (debian-root.sh), a build tree of its own
# (_build/SUITE, configured and built inside the root with that version's headers and compiler),
# then the tests inside the root, on that version's munged, slurmctld and slurmd.
#   contrib/scripts/test-slurm-version.sh SUITE [TEST...]
#     SUITE  trixie (Slurm 24.11) or forky (Slurm 26.05)
#     TEST   scripts under tests/integration/ (default: test_slurm_submit.sh
#            test_federation_agents.sh)
# Each test's output and an automake-style result go to _build/SUITE/tests/integration/NAME.log
# and NAME.trs, which .ci/run's closing line counts. Exits 1 when the root, the build or a test
# fails. Needs root (the root is made with debootstrap; the tests start daemons). SF_JOBS sets
# make's -j (default 2).
set -uo pipefail

usage() {
  sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"
  exit "${1:-2}"
}
case "${1:-}" in -h|--help) usage 0 ;; "" | -*) usage ;; esac
suite=$1
shift
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(test_slurm_submit.sh test_federation_agents.sh)

top=$(cd "$(dirname "$0")/../.." && pwd -P)
say() { echo "spiderflow: $suite: $*" >&2; }
for t in "${tests[@]}"; do
  [ -f "$top/tests/integration/$t" ] || { say "no test tests/integration/$t"; exit 2; }
done
[ -x "$top/configure" ] || { say "run autoreconf -fi first (no ./configure)"; exit 2; }

root=$("$top/contrib/scripts/debian-root.sh" "$suite" | tail -1) || { say "no Debian root"; exit 1; }
in_root() { "$top/contrib/scripts/in-root.sh" "$root" "$@"; }
version=$(in_root slurmctld -V 2>/dev/null)
say "$version in $root"

# Only what the Slurm-facing tests run: the plugins, the command, the daemons.
targets=(plugins/spank/spiderflow.la plugins/spank/spiderflow_stepd.la plugins/job_submit/job_submit_spiderflow.la
         spiderflow spiderflow-agent spiderflow-brokerd)
build=$top/_build/$suite
mkdir -p "$build/tests/integration"
cd "$build" || exit 1
start=$SECONDS
if ! in_root sh -c "{ [ -f Makefile ] || '$top/configure' -q; } && make -s -j${SF_JOBS:-2} ${targets[*]}" \
     >"$build/build.log" 2>&1; then
  say "build against $version failed; the end of $build/build.log:"
  grep -E 'error|Error' "$build/build.log" | tail -30 >&2
  exit 1
fi
say "built against $version in $((SECONDS - start)) s"

status=0
for t in "${tests[@]}"; do
  log=$build/tests/integration/$t.log
  start=$SECONDS
  in_root env SF_SRCDIR="$top" SF_BUILDDIR="$build" timeout 1200 bash "$top/tests/integration/$t" >"$log" 2>&1
  rc=$?
  case $rc in
    0) result=PASS ;;
    77) result=SKIP ;;
    *) result=FAIL; status=1 ;;
  esac
  printf ':test-result: %s\n' "$result" >"${log%.log}.trs"
  say "$result: $t ($(grep -c '^ok' "$log") ok, $(grep -c '^not ok' "$log") not ok, $((SECONDS - start)) s)"
  [ "$result" = FAIL ] && grep '^not ok' "$log" | head -20 >&2
done
exit $status
