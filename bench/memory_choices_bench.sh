#!/bin/sh
# The planner's memory choices (issue 38): predicted MFU of the default plan, which weighs none,
# selective and full recomputation and turns sequence parallelism on wherever tp > 1, against the
# default before that search (the better of no recomputation and full, sequence parallelism off),
# on the same GPUs, in one run. Each row: model, GPUs, topology, before and after, ratio.
#   bench/memory_choices_bench.sh [BUILDDIR]      (default: _build/ci, else _build/dev)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-}
[ -n "$build" ] || for d in "$top/_build/ci" "$top/_build/dev"; do [ -x "$d/spiderflow" ] && build=$d && break; done
sf="$build/spiderflow"
[ -x "$sf" ] || { echo "memory_choices_bench: no spiderflow in '$build' (build first)" >&2; exit 2; }

mfu() {   # plan ARGS... -> MFU in percent, or "-" when nothing fits
    "$sf" plan --format json "$@" 2>/dev/null | /usr/bin/python3 -c \
        'import json,sys; p=json.load(sys.stdin)["prediction"]; print("%.1f %s" % (100 * p["mfu"], p["iteration_s"]))' 2>/dev/null || echo "- -"
}

row() {   # LABEL TOPOLOGY ARGS...
    label=$1; topo=$2; shift 2
    after=$(mfu --topology "$topo" "$@")
    b_none=$(mfu --topology "$topo" "$@" --recompute=none --sequence-parallel=no)
    b_full=$(mfu --topology "$topo" "$@" --recompute=full --sequence-parallel=no)
    /usr/bin/python3 - "$label" "$after" "$b_none" "$b_full" <<'PY'
import sys
label, after, none, full = sys.argv[1:]
def parse(s):
    m, t = s.split()
    return None if m == "-" else (float(m), float(t))
a, n, f = parse(after), parse(none), parse(full)
before = max((x for x in (n, f) if x), key=lambda x: x[0], default=None)
if a is None or before is None:
    print(f"{label:<44} before {before} after {a}: no plan")
else:
    print(f"{label:<44} MFU {before[0]:5.1f}% -> {a[0]:5.1f}%  ({before[1]:.2f} s -> {a[1]:.2f} s per iteration)  {a[0] / before[0]:.2f}x")
PY
}

echo "default plan's MFU: before (none or full recomputation, no sequence parallelism) -> now (searched)"
row "llama3-8b, 64 GPUs, one 1,024-H100 cluster" "$top/bench/data/one-cluster-1024-h100.json" \
    --model llama3-8b --global-batch 256 --gpus 64
row "llama3-8b, 256 GPUs, two-datacenters-dedicated" "$top/contrib/topologies/two-datacenters-dedicated.json" \
    --model llama3-8b --global-batch 256 --seq-len 4096 --gpus 256
row "llama3-70b, 256 GPUs, two-datacenters-dedicated" "$top/contrib/topologies/two-datacenters-dedicated.json" \
    --model llama3-70b --global-batch 1024 --seq-len 4096 --gpus 256
row "llama3-405b, 1,024 GPUs, one H100 cluster" "$top/bench/data/one-cluster-1024-h100.json" \
    --model llama3-405b --global-batch 2048 --seq-len 4096 --gpus 1024
