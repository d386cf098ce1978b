#!/bin/sh
# Every golden plan runs as priced (issue 38): each `spiderflow plan` case of cases.txt that plans
# (exit 0) is planned again as JSON, and then
#   - `spiderflow estimate --plan` must re-price it within 0.1% of the iteration time the plan
#     file carries (everything the cost model priced travels in the file);
#   - `spiderflow launch --dry-run --plan` of a Megatron-LM command must carry exactly the plan's
#     memory choices: --recompute-granularity (with --recompute-method uniform and
#     --recompute-num-layers 1 for full), --sequence-parallel at tp > 1, --use-distributed-optimizer,
#     --attention-backend flash, --num-virtual-stages-per-pipeline-rank; nothing the plan lacks.
# Prints a TAP line per plan and per check.
set -u
set -f

here=$(cd "$(dirname "$0")" && pwd)
srcdir=${SF_SRCDIR:-$(cd "$here/../.." && pwd)}
builddir=${SF_BUILDDIR:-$(pwd)}
sf="$builddir/spiderflow"
py=/usr/bin/python3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sf-priced.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
SPIDERFLOW_CONF=$tmp/no-site.conf
export SPIDERFLOW_CONF
cd "$srcdir" || exit 99

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }

tab=$(printf '\t')
grep "^plan_[^$tab]*${tab}spiderflow plan " tests/golden/cases.txt > "$tmp/cases"
while IFS="$tab" read -r name command; do
    # shellcheck disable=SC2086
    set -- $command
    shift  # "spiderflow"
    if ! "$sf" "$@" --no-timing --format json -o "$tmp/plan.json" >/dev/null 2>&1; then
        continue  # a refusal case: nothing planned
    fi
    topology=$(echo "$command" | sed -n 's/.*--topology \([^ ]*\).*/\1/p')
    # A plan with --sync either carries the comparison beside the plan; the plan itself is the rest.
    "$py" -c 'import json,sys; j=json.load(open(sys.argv[1])); j.pop("sync_comparison", None); json.dump(j, open(sys.argv[1], "w"))' "$tmp/plan.json"
    if ! "$sf" estimate --topology "$topology" --plan "$tmp/plan.json" --format json > "$tmp/estimate.json" 2>"$tmp/err"; then
        not_ok "$name: estimate --plan refused the plan: $(cat "$tmp/err")"
        continue
    fi
    verdict=$("$py" - "$tmp/plan.json" "$tmp/estimate.json" <<'PY'
import json, sys
plan = json.load(open(sys.argv[1]))
est = json.load(open(sys.argv[2]))
planned = plan["prediction"]["iteration_s"]
priced = est["iteration_s"]
gap = abs(priced - planned) / planned
print(("ok" if gap <= 0.001 else "bad") + f" planned {planned:.4f} s, re-priced {priced:.4f} s ({100 * gap:.3f}%)")
PY
)
    case $verdict in
        ok*) ok "$name: estimate --plan re-prices it: ${verdict#ok }" ;;
        *) not_ok "$name: estimate --plan: ${verdict#bad }" ;;
    esac
    if [ "$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["job"].get("sync", {}).get("mode", "sync"))' "$tmp/plan.json")" = diloco ]; then
        continue  # DiLoCo plans launch torchtitan, checked by the launch_diloco golden
    fi
    if ! "$sf" launch --dry-run --plan "$tmp/plan.json" -- python pretrain_gpt.py > "$tmp/launch.sh" 2>"$tmp/err"; then
        not_ok "$name: launch refused the plan: $(cat "$tmp/err")"
        continue
    fi
    verdict=$("$py" - "$tmp/plan.json" "$tmp/launch.sh" <<'PY'
import json, shlex, sys
plan = json.load(open(sys.argv[1]))
job, deg = plan["job"], plan["degrees"]
words = []
for line in open(sys.argv[2]):
    if "pretrain_gpt.py" in line:
        words = shlex.split(line)
def value(flag):
    for i, w in enumerate(words):
        if w == flag:
            return words[i + 1] if i + 1 < len(words) and not words[i + 1].startswith("--") else True
        if w.startswith(flag + "="):
            return w.split("=", 1)[1]
    return None
recompute = job["recompute"]
expected = {
    "--recompute-granularity": None if recompute == "none" else recompute,
    "--recompute-method": "uniform" if recompute == "full" else None,
    "--recompute-num-layers": "1" if recompute == "full" else None,
    "--sequence-parallel": True if job["sequence_parallel"] and deg["tp"] > 1 else None,
    "--use-distributed-optimizer": True if job["zero1"] else None,
    "--attention-backend": "flash" if job["flash_attention"] else None,
    "--num-virtual-stages-per-pipeline-rank": str(deg.get("virtual_stages", 1)) if deg.get("virtual_stages", 1) > 1 else None,
}
wrong = [f"{f} is {value(f)!r}, the plan says {e!r}" for f, e in expected.items() if value(f) != e]
print("bad " + "; ".join(wrong) if wrong else f"ok recompute {recompute}, sequence parallel {job['sequence_parallel']}, zero1 {job['zero1']}")
PY
)
    case $verdict in
        ok*) ok "$name: the launch line carries the plan's choices (${verdict#ok })" ;;
        *) not_ok "$name: launch line: ${verdict#bad }" ;;
    esac
done < "$tmp/cases"

echo "1..$n"
[ "$n" -gt 0 ] || { echo "no golden plan was checked"; exit 1; }
[ "$failed" -eq 0 ]
