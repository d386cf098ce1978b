#!/bin/bash
# Issue 43's end-to-end figure: plain sbatch of a cross-site job against a federation of 1,024
# clusters, from submit to the plan printed, against spiderflow.conf's time_budget (the shipped
# default, contrib/slurm/spiderflow.conf), with the same at 64 clusters in the same run as a
# baseline. Each federation is real but for its load: this localhost Slurm cluster
# (tests/integration/slurm_cluster.sh) is one of N clusters (N-1 generated, bench/
# federation_topology.sh), spiderflow-brokerd runs with the shipped settings, the other N-1
# clusters publish through bench/broker_bench (inventories, then deltas every 5 s each, and 100
# federation reads a second) in the background for the whole measurement, and this cluster's
# own spiderflow-agent (agent.conf defaults: 5 s interval) publishes it and keeps the site-state
# cache job_submit plans on, by delta reads. This cluster is the campus neighbour of a large site
# (see campus below). Once the cache holds the federation, each sbatch asks for more GPUs than
# any one cluster has (so it must cross sites), with its own sequence length so job_submit's
# decision cache never answers: half submitted right after the agent rewrote the cache (which
# job_submit then reads anew), half while it is unchanged. Per sbatch: wall time to sbatch's
# exit with the plan printed, job_submit's decision time and its read of the cache (slurmctld's
# log), what the plan says (clusters). Prints median/p99 over time_budget.
# Usage (as root, from the build dir, or `make bench-sbatch-federation`):
#   bench/sbatch_federation_bench.sh [--clusters N] [--baseline N] [--jobs J]
set -u
CLUSTERS=1024
BASELINE=64
JOBS=10
while [ $# -gt 0 ]; do
    case $1 in
    --clusters) CLUSTERS=$2; shift 2 ;;
    --baseline) BASELINE=$2; shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    *) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
    esac
done
SRC=$(cd "$(dirname "$0")/.." && pwd)
export SF_BUILDDIR=${SF_BUILDDIR:-$(pwd)}
. "$SRC/tests/integration/slurm_cluster.sh"   # also checks.sh: free_port, brokerd_conf
. "$SRC/bench/federation_topology.sh"
. "$SRC/bench/federation_broker.sh"
sf_cluster_can_run || exit 77
SPIDERFLOW=$SF_BUILDDIR/spiderflow
for f in "$SPIDERFLOW" "$SF_BUILDDIR/spiderflow-brokerd" "$SF_BUILDDIR/spiderflow-agent" "$SF_BUILDDIR/bench/broker_bench"; do
    [ -x "$f" ] || { echo "sbatch_federation_bench: build $f first (make, from the build dir)" >&2; exit 1; }
done
command -v curl >/dev/null || { echo "sbatch_federation_bench: needs curl" >&2; exit 1; }
BUDGET=$(sed -n 's/^time_budget = //p' "$SRC/contrib/slurm/spiderflow.conf")
[ -n "$BUDGET" ] || { echo "sbatch_federation_bench: no time_budget in contrib/slurm/spiderflow.conf" >&2; exit 1; }

sf_cluster_start || exit 1
BROKER=
LOAD=
AGENT=
stop_federation() {
    local p
    for p in $AGENT $LOAD $BROKER; do kill "$p" 2>/dev/null; done
    for p in $AGENT $LOAD $BROKER; do
        for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$p" 2>/dev/null
    done
    AGENT= LOAD= BROKER=
}
trap 'stop_federation; sf_cluster_stop' EXIT

HERE=$(sed -n 's/^ClusterName=//p' "$SF_TMP/slurm.conf")
GPUS_HERE=$(python3 -c 'import json,sys; print(sum(n["gpus"] for n in json.load(open(sys.argv[1]))["clusters"][0]["nodes"]))' \
    "$SF_TMP/topology.json")
MODEL=llama3-70b
BATCH=256
PROBE_GPUS=128
sed -i "s/^time_budget = .*/time_budget = $BUDGET/" "$SF_TMP/spiderflow.conf"
echo "cluster = $HERE" >>"$SF_TMP/spiderflow.conf"
# Cancelled jobs stay in slurmctld's table for MinJobAge and slow every later sbatch.
sed -i 's/^MinJobAge=.*/MinJobAge=2/' "$SF_TMP/slurm.conf"
scontrol reconfigure >/dev/null

# cache_holds CACHE N: the agent's site-state cache holds the federation: jobs of the N-1 other
# clusters (each publishes half its nodes busy) and an epoch past every inventory.
cache_holds() {
    [ -s "$1" ] && python3 - "$1" "$2" "$HERE" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
others = {n["cluster"] for j in s["jobs"] for n in j["nodes"]} - {sys.argv[3]}
sys.exit(0 if len(others) == int(sys.argv[2]) - 1 and s["epoch"] >= int(sys.argv[2]) else 1)
PY
}
mtime() { stat -c %Y.%N "$1" 2>/dev/null || echo 0; }

# campus TOPOLOGY: this cluster becomes the campus neighbour (100 Gbit/s, 1 ms) of the cluster
# that a job of PROBE_GPUS is planned on alone, and SPEC asks for both clusters' usable GPUs
# (broker_bench drains one node of each cluster). A small
# site linked like any other (make_topology's 10 Gbit/s, 20 ms) is never in the best plan of a
# job larger than itself, and job_submit refuses a plan without this cluster ("submit it on one
# of those clusters"); a cross-site job that runs from here needs a site worth crossing to.
campus() {
    local peer node_gpus
    peer=$("$SPIDERFLOW" plan --topology "$1" --model "$MODEL" --global-batch "$BATCH" --seq-len 4096 --gpus "$PROBE_GPUS" \
        --format text 2>/dev/null | sed -n 's/^Clusters: \([^ ]*\) ([0-9]* GPUs)$/\1/p')
    [ -n "$peer" ] || { echo "sbatch_federation_bench: $PROBE_GPUS GPUs of $MODEL do not plan on one cluster" >&2; return 1; }
    node_gpus=$(python3 - "$1" "$HERE" "$peer" <<'PY'
import json, sys
path, here, peer = sys.argv[1:]
t = json.load(open(path))
t["links"] = [l for l in t["links"] if here not in (l["a"], l["b"])] + [{"a": here, "b": peer, "gbps": 100, "latency_ms": 1}]
json.dump(t, open(path, "w"))
print(next(c for c in t["clusters"] if c["name"] == peer)["nodes"][-1]["gpus"])
PY
) || return 1
    SPEC=("--llm-model=$MODEL" "--llm-global-batch=$BATCH" "--gpus=$((PROBE_GPUS - node_gpus + GPUS_HERE))")
    CAMPUS=$peer
}

# federation_up N: topology, tokens, broker, the load of N-1 clusters, this cluster's agent;
# returns once the agent's cache holds the federation and job_submit is pointed at it.
federation_up() {
    local n=$1 d=$SF_TMP/fed$1 port t0
    mkdir -p "$d"
    make_topology "$n" "$d/topology.json" || return 1
    campus "$d/topology.json" || return 1
    write_federation_tokens "$SF_BUILDDIR/spiderflow-brokerd" "$d/topology.json" "$d" || return 1
    port=$(free_port)
    bench_brokerd_conf "$d" "$port" "$d/topology.json" >"$d/brokerd.conf"
    BROKER=$(bench_start_broker "$SF_BUILDDIR/spiderflow-brokerd" "$d/brokerd.conf" "$d/brokerd.log") || return 1
    # Longer than any measurement: stopped by PID when the sbatches are done.
    "$SF_BUILDDIR/bench/broker_bench" --broker "http://127.0.0.1:$port" --topology "$d/topology.json" \
        --tokens "$d/tokens.d" --pid "$BROKER" --skip "$HERE" --seconds 3600 >"$d/load.log" 2>&1 &
    LOAD=$!
    sed -i -e "s#^topology = .*#topology = $d/topology.json#" -e '/^site_state = /d' "$SF_TMP/spiderflow.conf"
    echo "site_state = $d/federation-state.json" >>"$SF_TMP/spiderflow.conf"
    printf 'broker = http://127.0.0.1:%s\ntoken_file = %s\nspiderflow_conf = %s\n' "$port" "$d/tokens.d/$HERE.token" \
        "$SF_TMP/spiderflow.conf" >"$d/agent.conf"
    "$SF_BUILDDIR/spiderflow-agent" --config "$d/agent.conf" >"$d/agent.log" 2>&1 &
    AGENT=$!
    t0=$(date +%s)
    until cache_holds "$d/federation-state.json" "$n"; do
        if [ $(($(date +%s) - t0)) -gt 600 ] || ! kill -0 "$AGENT" 2>/dev/null || ! kill -0 "$LOAD" 2>/dev/null; then
            echo "sbatch_federation_bench: the agent's cache never held $n clusters; agent and load logs:" >&2
            tail -5 "$d/agent.log" "$d/load.log" >&2
            return 1
        fi
        sleep 0.5
    done
    echo "  $n clusters: this cluster is $CAMPUS's campus neighbour; the cache holds the federation $(($(date +%s) - t0)) s after the agent started" \
        "($(($(stat -c %s "$d/federation-state.json") / 1024)) KiB, epoch $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["epoch"])' "$d/federation-state.json"))"
}

SEQ=4096
# plan_of SBATCH_OUTPUT: "OUTCOME CLUSTERS": cross (planned across clusters, this one included:
# the job is held for the broker), elsewhere (the plan has nothing on this cluster: refused,
# naming where to submit), refused (a plan that a cross-site job cannot run yet, such as data
# parallelism interleaved across sites), unplanned (job_submit passed it on, e.g. past
# time_budget), or other.
plan_of() {
    python3 -c '
import re, sys
out = sys.stdin.read()
m = re.search(r"planned \S+ as .* across (\d+) clusters: (.*?); [0-9.]+ s per iteration", out)
if m:
    print("cross", m.group(1) + ":" + ",".join(re.findall(r"(\S+) \d+ node\(s\)", m.group(2)))); sys.exit()
m = re.search(r"the plan places this job on (.*) and nothing on this cluster", out)
if m:
    names = re.findall(r"(\S+) \(\d+ GPUs\)", m.group(1))
    print("elsewhere", str(len(names)) + ":" + ",".join(names)); sys.exit()
m = re.search(r"the plan \((.*?)\) spreads ranks", out)
if m:
    names = re.findall(r"(\S+) \(\d+ GPUs\)", m.group(1))
    print("refused", str(len(names)) + ":" + ",".join(names)); sys.exit()
m = re.search(r"runs UNPLANNED, as plain Slurm would run it \((.*?);", out)
print("unplanned" if m else "other", "-")
'
}
# submit_series N: JOBS sbatch calls; per call to fedN/results: "WHEN OUTCOME WALL_US DECISION_MS
# WAITED_MS BESIDE_MS CLUSTERS", WAITED_MS the site-state read it waited for (0: none), BESIDE_MS
# the CPU time of a refresh read on job_submit's own thread that it was the first to plan on (nan:
# none; its wall time on a busy machine is mostly waiting for a core).
submit_series() {
    local n=$1 d=$SF_TMP/fed$1 i when lines t0 t1 out id ms waited beside cache=$SF_TMP/fed$1/federation-state.json before new
    : >"$d/results"
    echo "${SPEC[*]}" >"$d/spec"
    # Unmeasured, as job_submit's first job after a change of spiderflow.conf: it reads the new
    # topology and cache itself, once (a refresh of that cache is then read beside the submit path).
    lines=$(wc -l <"$SF_TMP/slurmctld.log")
    id=$(sbatch --parsable -o /dev/null "${SPEC[@]}" --wrap=true 2>/dev/null) && scancel "$id"
    tail -n +$((lines + 1)) "$SF_TMP/slurmctld.log" | sed -n 's/.*spiderflow: site state read in \([0-9.]*\) ms.*/\1/p' |
        tail -n 1 >"$d/first_read"
    for ((i = 0; i < JOBS; i++)); do
        SEQ=$((SEQ + 64))
        when=held
        if ((i % 2 == 0)); then
            # Right after the agent's next rewrite of the cache: job_submit reads it anew first.
            when=fresh
            before=$(mtime "$cache")
            for _ in $(seq 200); do [ "$(mtime "$cache")" != "$before" ] && break; sleep 0.05; done
        fi
        lines=$(wc -l <"$SF_TMP/slurmctld.log")
        t0=$(date +%s%N)
        out=$(sbatch -o /dev/null "${SPEC[@]}" "--llm-seq-len=$SEQ" --wrap=true 2>&1)
        t1=$(date +%s%N)
        id=$(echo "$out" | sed -n 's/^Submitted batch job //p')
        [ -n "$id" ] && scancel "$id" 2>/dev/null
        echo "$out" >"$d/sbatch.$i.out"
        # job_submit's lines for this job: sbatch runs one at a time, so those logged since.
        new=$(tail -n +$((lines + 1)) "$SF_TMP/slurmctld.log")
        ms=$(echo "$new" | grep -o 'spiderflow: \(uid\|rejected job of uid\|job of uid\) .* ([0-9.]* ms)$' | tail -n 1 |
            grep -o '([0-9.]* ms)$' | tr -d '()ms ')
        waited=$(echo "$new" | sed -n 's/.*spiderflow: site state read in \([0-9.]*\) ms.*/\1/p' | tail -n 1)
        beside=$(echo "$new" | sed -n 's/.*spiderflow: site state re-read in [0-9.]* ms, \([0-9.]*\) ms of CPU, on its own thread.*/\1/p' | tail -n 1)
        echo "$when $(echo "$out" | plan_of | cut -d' ' -f1) $(((t1 - t0) / 1000)) ${ms:-nan} ${waited:-0} ${beside:-nan}" \
            "$(echo "$out" | plan_of | cut -d' ' -f2)" >>"$d/results"
    done
}

# stats FILE COLUMN [FILTER]: "median p99 max" (nearest rank) of a column of FILE's rows whose
# first column is FILTER (all rows without one)
stats() {
    awk -v c="$2" -v f="${3:-}" '(f == "" || $1 == f) && $c != "nan" {print $c}' "$1" | sort -n |
        awk '{v[NR]=$1} END{if(!NR){print "- - -"; exit} m=int(0.5*NR+0.999999); p=int(0.99*NR+0.999999); print v[m], v[p], v[NR]}'
}
ratio() { echo "scale=3; ($1) / ($2)" | bc; }
report() {
    local n=$1 r=$SF_TMP/fed$1/results what f
    echo "  $n clusters: $(wc -l <"$r") sbatch of $(cat "$SF_TMP/fed$1/spec") --llm-seq-len=(its own); time_budget $BUDGET s"
    for what in all fresh held; do
        f=$what; [ "$what" = all ] && f=
        read -r w50 w99 wmax <<<"$(stats "$r" 3 "$f")"
        read -r p50 p99 pmax <<<"$(stats "$r" 4 "$f")"
        read -r c50 c99 cmax <<<"$(stats "$r" 5 "$f")"
        read -r b50 b99 bmax <<<"$(stats "$r" 6 "$f")"
        [ "$w50" = - ] && continue
        w50=$(ratio "$w50" 1000); w99=$(ratio "$w99" 1000); wmax=$(ratio "$wmax" 1000)
        printf "    %-5s submit to plan printed  median %8s ms  p99 %8s ms  max %8s ms   /budget: median %s  p99 %s\n" "$what" \
            "$w50" "$w99" "$wmax" "$(ratio "$w50" "$BUDGET * 1000")" "$(ratio "$w99" "$BUDGET * 1000")"
        [ "$p50" = - ] || printf "          job_submit's decision median %8s ms  p99 %8s ms  max %8s ms   /budget: median %s  p99 %s\n" \
            "$p50" "$p99" "$pmax" "$(ratio "$p50" "$BUDGET * 1000")" "$(ratio "$p99" "$BUDGET * 1000")"
        [ "$what" = all ] && printf "          cache reads an sbatch waited for: max %s ms; refreshes read beside the submit path (CPU): median %s ms  max %s ms\n" \
            "$cmax" "$b50" "$bmax"
    done
    echo "    job_submit's first read of this federation's topology and cache (unmeasured warm-up sbatch): $(cat "$SF_TMP/fed$1/first_read") ms"
    echo "    outcomes (clusters in the plan): $(cut -d' ' -f2,7 "$r" | sort | uniq -c | sed 's/^ *//' | paste -sd ';' | sed 's/;/; /g')"
    grep -h '^broker_bench:\|^inventory' "$SF_TMP/fed$1/load.log" | sed 's/^/    load: /'
}

echo "sbatch_federation_bench: this cluster $HERE ($GPUS_HERE GPUs), $JOBS sbatch per federation, on $(nproc) cores" \
    "(load average $(cut -d' ' -f1-3 /proc/loadavg))"
for N in $BASELINE $CLUSTERS; do
    federation_up "$N" || exit 1
    submit_series "$N"
    stop_federation
done
for N in $BASELINE $CLUSTERS; do report "$N"; done
echo "  (fresh: submitted right after the agent rewrote the cache; held: the cache unchanged since job_submit last looked)"
