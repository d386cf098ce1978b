#!/bin/bash
# Submit-path benchmark on a real localhost Slurm cluster (tests/integration/slurm_cluster.sh):
#  - latency job_submit/spiderflow adds per sbatch with a cached topology of 8 and 64 clusters
#    (this cluster plus generated ones): in-plugin time from slurmctld's log, and end-to-end
#    sbatch time with the plugin over without it; median and p99;
#  - sbatch throughput with both plugins over without either (SpiderFlow jobs vs the same
#    request without our options, JobSubmitPlugins unset and no plugstack), all in one run.
#    Targets: median added <= 10 ms, ratio >= 0.9;
#  - what every client command pays for the SPANK plugin: 100 x `sbatch --help` and 50 plain
#    submissions with our plugstack over without it, interleaved. Target <= 1.1x.
# Usage (as root, from the build dir): [ROUNDS=5] bench/submit_bench.sh [JOBS_PER_POINT_PER_ROUND]
set -u
N=${1:-40}
SRC=$(cd "$(dirname "$0")/.." && pwd)
export SF_BUILDDIR=${SF_BUILDDIR:-$(pwd)}
. "$SRC/tests/integration/slurm_cluster.sh"
sf_cluster_can_run || exit 77
SPIDERFLOW=$SF_BUILDDIR/spiderflow
[ -x "$SPIDERFLOW" ] || { echo "submit_bench: build ./spiderflow first" >&2; exit 1; }
sf_cluster_start || exit 1

# Topologies: generated federations of N-1 clusters plus this cluster (same nodes as slurm.conf).
. "$SRC/bench/federation_topology.sh"
make_topology 8 "$SF_TMP/fed8.json" && make_topology 64 "$SF_TMP/fed64.json" || exit 1
HERE=$(grep -o '^ClusterName=.*' "$SF_TMP/slurm.conf" | cut -d= -f2)
echo "cluster = $HERE" >> "$SF_TMP/spiderflow.conf"
echo "time_budget = 0.5" >> "$SF_TMP/spiderflow.conf"
sed -i '/^time_budget = 5$/d' "$SF_TMP/spiderflow.conf"

use_topology() { sed -i "s#^topology = .*#topology = $1#" "$SF_TMP/spiderflow.conf"; }
set_plugin() {  # set_plugin on|off: reconfigure reloads job_submit when the string changes
    sed -i '/^JobSubmitPlugins=/d' "$SF_TMP/slurm.conf"
    [ "$1" = on ] && echo "JobSubmitPlugins=spiderflow" >> "$SF_TMP/slurm.conf"
    scontrol reconfigure >/dev/null && sleep 1
}
# Clients that load no SPANK plugin: the same slurm.conf with an empty plugstack.
: > "$SF_TMP/plugstack-none.conf"
sed "s#^PlugStackConfig=.*#PlugStackConfig=$SF_TMP/plugstack-none.conf#" "$SF_TMP/slurm.conf" > "$SF_TMP/slurm-nospank.conf"
WITH_CONF=$SF_TMP/slurm.conf
WITHOUT_CONF=$SF_TMP/slurm-nospank.conf
# client_series CONF LABEL COUNT CMD...: wall seconds of COUNT runs, appended to $SF_TMP/LABEL.s
client_series() {
    local conf=$1 label=$2 count=$3; shift 3
    local start end i
    start=$(date +%s%N)
    for ((i = 0; i < count; i++)); do SLURM_CONF=$conf "$@" >/dev/null 2>&1; done
    end=$(date +%s%N)
    echo "scale=4; ($end - $start) / 1000000000" | bc >> "$SF_TMP/$label.s"
}
ratio_of() { echo "scale=3; $1 / $2" | bc; }
CLIENT_ROUNDS=${CLIENT_ROUNDS:-5}
: > "$SF_TMP/help.with.s"; : > "$SF_TMP/help.without.s"; : > "$SF_TMP/sub.with.s"; : > "$SF_TMP/sub.without.s"
for ((r = 1; r <= CLIENT_ROUNDS; r++)); do
    client_series "$WITHOUT_CONF" help.without 20 sbatch --help
    client_series "$WITH_CONF" help.with 20 sbatch --help
    client_series "$WITHOUT_CONF" sub.without 10 sbatch --hold -o /dev/null --wrap=true
    client_series "$WITH_CONF" sub.with 10 sbatch --hold -o /dev/null --wrap=true
    scancel --state=PENDING --user=root >/dev/null 2>&1
done
sum() { paste -sd+ "$1" | bc; }
HELP_RATIO=$(ratio_of "$(sum "$SF_TMP/help.with.s")" "$(sum "$SF_TMP/help.without.s")")
SUB_RATIO=$(ratio_of "$(sum "$SF_TMP/sub.with.s")" "$(sum "$SF_TMP/sub.without.s")")

SPEC=(--llm-model=llama3-8b --llm-global-batch=64 --gpus=16)
# job_submit caches decisions per spec, so resubmits of SPEC mostly measure a cache hit; COLD
# gives every sbatch its own sequence length (@SEQ@), so each one runs the planner.
COLD=(--llm-model=llama3-8b --llm-global-batch=64 --gpus=16 --llm-seq-len=@SEQ@)
SEQ_NEXT=2048
# submit_series LABEL ARGS... : N sbatch calls, one after another; per-call ms to $SF_TMP/LABEL.ms
submit_series() {
    local label=$1; shift
    local t0 t1 i start end
    : > "$SF_TMP/$label.ms"
    start=$(date +%s%N)
    for ((i = 0; i < N; i++)); do
        t0=$(date +%s%N)
        SEQ_NEXT=$((SEQ_NEXT + 1))
        SLURM_CONF=${SUBMIT_CONF:-$WITH_CONF} sbatch --parsable --hold -o /dev/null "${@//@SEQ@/$SEQ_NEXT}" --wrap=true \
        >/dev/null 2>>"$SF_TMP/$label.raw" || echo "submit failed" >>"$SF_TMP/$label.err"
        t1=$(date +%s%N)
        echo $(( (t1 - t0) / 1000 )) >> "$SF_TMP/$label.ms"   # microseconds
    done
    end=$(date +%s%N)
    echo "scale=3; $N * 1000000000 / ($end - $start)" | bc > "$SF_TMP/$label.rate"
    scancel --state=PENDING --user=root >/dev/null 2>&1
    sleep 0.5
}
pct() {  # pct FILE P -> value at percentile P (nearest rank)
    sort -n "$1" | awk -v p="$2" '{v[NR]=$1} END{i=int((p/100)*NR + 0.999999); if(i<1)i=1; print v[i]}'
}
plugin_ms() {  # in-plugin planning ms of the last N planned jobs
    grep -o 'spiderflow plan .* (\([0-9.]*\) ms)' "$SF_TMP/slurmctld.log" | tail -n "$N" | grep -o '([0-9.]* ms)' | tr -d '()ms ' > "$SF_TMP/$1.plugin"
}

# Cancelled jobs stay in slurmctld's table for MinJobAge and slow every later sbatch: purge
# them quickly. Load on a shared machine drifts over minutes, so the series are interleaved:
# each round runs without the plugin, then with it (8 and 64 clusters, and an untouched job),
# and ratios are taken within a round, then the median over rounds is reported.
sed -i 's/^MinJobAge=.*/MinJobAge=2/' "$SF_TMP/slurm.conf"
ROUNDS=${ROUNDS:-5}
for C in 8 64; do   # load and cache each topology once, outside the measurement
    set_plugin on; use_topology "$SF_TMP/fed$C.json"
    sbatch --hold -o /dev/null "${SPEC[@]}" --wrap=true >/dev/null 2>&1
done
: > "$SF_TMP/ratios"
for ((r = 1; r <= ROUNDS; r++)); do
    set_plugin off
    SUBMIT_CONF=$WITHOUT_CONF submit_series "base.$r" --gpus=16   # neither plugin: the same request, plain
    set_plugin on
    for C in 8 64; do
        use_topology "$SF_TMP/fed$C.json"
        submit_series "fed$C.$r" "${SPEC[@]}"
        plugin_ms "fed$C.$r"
        echo "fed$C $(echo "scale=3; $(cat "$SF_TMP/fed$C.$r.rate") / $(cat "$SF_TMP/base.$r.rate")" | bc)" >> "$SF_TMP/ratios"
        submit_series "cold$C.$r" "${COLD[@]}"
        plugin_ms "cold$C.$r"
        echo "cold$C $(echo "scale=3; $(cat "$SF_TMP/cold$C.$r.rate") / $(cat "$SF_TMP/base.$r.rate")" | bc)" >> "$SF_TMP/ratios"
    done
    submit_series "plain.$r" --gpus=16   # plugin loaded, job without our options
    echo "plain $(echo "scale=3; $(cat "$SF_TMP/plain.$r.rate") / $(cat "$SF_TMP/base.$r.rate")" | bc)" >> "$SF_TMP/ratios"
done
set_plugin off
for L in base fed8 fed64 cold8 cold64 plain; do
    cat "$SF_TMP/$L".[0-9]*.ms > "$SF_TMP/$L.ms"
    cat "$SF_TMP/$L".[0-9]*.rate > "$SF_TMP/$L.rates"
    [ "$L" = base ] || [ "$L" = plain ] || cat "$SF_TMP/$L".[0-9]*.plugin > "$SF_TMP/$L.plugin"
    grep "^$L " "$SF_TMP/ratios" | cut -d' ' -f2 > "$SF_TMP/$L.ratios"
done

ms() { echo "scale=2; $1 / 1000" | bc; }
b50=$(pct "$SF_TMP/base.ms" 50); b99=$(pct "$SF_TMP/base.ms" 99)
echo "submit_bench: $ROUNDS interleaved rounds x $N sbatch calls per point on $(nproc) cores (load average $(cut -d' ' -f1-3 /proc/loadavg))"
printf "  %-28s median %7s ms  p99 %7s ms  median %8s jobs/s (rounds: %s)\n" "without plugin" "$(ms "$b50")" "$(ms "$b99")" \
    "$(pct "$SF_TMP/base.rates" 50)" "$(tr '\n' ' ' < "$SF_TMP/base.rates")"
for L in fed8 fed64 cold8 cold64; do
    C=${L#fed}; C=${C#cold}
    what="planned, $C clusters cached"; [ "${L#cold}" != "$L" ] && what="$what, new spec each"
    m=$(pct "$SF_TMP/$L.ms" 50); p=$(pct "$SF_TMP/$L.ms" 99)
    pm=$(pct "$SF_TMP/$L.plugin" 50); pp=$(pct "$SF_TMP/$L.plugin" 99)
    printf "  %-40s median %7s ms  p99 %7s ms  median %8s jobs/s\n" "$what" "$(ms "$m")" "$(ms "$p")" "$(pct "$SF_TMP/$L.rates" 50)"
    printf "    in-plugin time             median %7s ms  p99 %7s ms (target median <= 10 ms)\n" "$pm" "$pp"
    printf "    added per sbatch           median %7s ms\n" "$(ms $((m - b50)))"
    printf "    throughput with/without    median %s over rounds (%s) (target >= 0.9)\n" "$(pct "$SF_TMP/$L.ratios" 50)" \
        "$(tr '\n' ' ' < "$SF_TMP/$L.ratios")"
done
printf "  %-28s median %7s ms  throughput ratio median %s\n" "untouched job, plugin on" "$(ms "$(pct "$SF_TMP/plain.ms" 50)")" \
    "$(pct "$SF_TMP/plain.ratios" 50)"
printf "  client commands with our SPANK plugin over without (%s rounds, interleaved; target <= 1.1):\n" "$CLIENT_ROUNDS"
printf "    100 x sbatch --help          %s s over %s s = %sx\n" "$(sum "$SF_TMP/help.with.s")" "$(sum "$SF_TMP/help.without.s")" "$HELP_RATIO"
printf "    50 plain submissions         %s s over %s s = %sx\n" "$(sum "$SF_TMP/sub.with.s")" "$(sum "$SF_TMP/sub.without.s")" "$SUB_RATIO"
if cat "$SF_TMP"/fed*.err "$SF_TMP"/cold*.err 2>/dev/null | grep -q .; then echo "submit errors:"; cat "$SF_TMP"/fed*.err "$SF_TMP"/cold*.err | sort | uniq -c | head; fi
