#!/bin/bash
# Soak: many short cross-site jobs over three real Slurm clusters on localhost (alpha, beta, gamma:
# two nodes of 8 fake GPUs each), the broker and an agent per cluster at a 1 s interval
# (tests/integration/federation.sh). JOBS jobs go to the broker as the agents' POST /v1/xjobs
# would, in waves of WAVE (1: each job once the one before finished), each over two of the three
# clusters in turn (one node a part) with a script that runs 1 s. Slurm 22.05's will-run answer for
# a part on a cluster that holds another part's reservation comes a minute later, so waves of more
# than one job measure that minute, not the broker; the broker is restarted twice on the way (a clean stop at a third of the
# jobs, kill -9 at two thirds). At the end:
#   lost: jobs not completed (none expected; each job's end read as it finishes); twice: jobs with
#   more than one run in the broker's history, or a part whose script started more than once (none); reservations left on any
#   cluster (none); part jobs left running or pending (none);
#   VmRSS (from /proc) of brokerd and every agent at the start, after every tenth of the jobs,
#   around each restart and at the end: flat.
# Exits 1 when a count is off. Usage (as root, from the build dir): bench/soak_bench.sh [JOBS]
# (300 by hand, `make bench-soak`; CI runs 20 as tests/integration/test_soak_short.sh).
set -u
JOBS=${1:-300}
case "$JOBS" in '' | *[!0-9]* | 0) echo "usage: $0 [JOBS]" >&2; exit 2 ;; esac
WAVE=${WAVE:-1}
SRC=$(cd "$(dirname "$0")/.." && pwd)
export SF_BUILDDIR=${SF_BUILDDIR:-$(pwd)}
. "$SRC/tests/integration/federation.sh"
fed_init alpha:an1,an2 beta:bn1,bn2 gamma:gn1,gn2
# Short jobs, a short lead: what a busy federation's broker decides all day, sped up.
sed -i "s/^coalloc_lead = .*/coalloc_lead = 2/" "$SF_TMP/brokerd.conf"
# Fewer finished jobs kept than the soak runs, so its memory figures are those of a broker whose
# list of finished jobs is full (brokerd.conf keep_finished; 1,000 by default): each job's end is
# read from its own record as it finishes.
echo "keep_finished = 20" >>"$SF_TMP/brokerd.conf"
for c in alpha beta gamma; do echo "part_min_uid = 0" >>"$SF_TMP/$c/agent.conf"; done  # the bench runs as root
fed_start
t0=$(date +%s)
published() { [ "$(curl -sf -H 'Authorization: Bearer tok-tools' "$URL/v1/clusters" | python3 -c 'import json,sys; print(sum(1 for c in json.load(sys.stdin)["clusters"] if c["published"]))')" = 3 ]; }
within 60 published || { echo "soak_bench: the agents never published" >&2; exit 1; }

OUT=$SF_TMP/out
mkdir -p "$OUT"
rss() { awk '/^VmRSS/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }
# rss_line LABEL: brokerd's and each agent's VmRSS (KiB) now
rss_line() {
    local line="$1: brokerd $(rss "$BROKER_PID")" c
    for c in alpha beta gamma; do eval "line+=\" $c \$(rss \$AGENT_$c)\""; done
    echo "$line" | tee -a "$SF_TMP/rss.txt"
}
pairs=("alpha beta" "beta gamma" "gamma alpha")
# submit I: job soak:I over pair I mod 3 (the home is the first cluster of the pair)
submit() {
    local i=$1 a b
    read -r a b <<<"${pairs[i % 3]}"
    python3 - "$i" "$a" "$b" "$OUT" >"$SF_TMP/job.json" <<'PY'
import json, sys
i, a, b, out = sys.argv[1:]
script = "#!/bin/bash\necho $SLURM_CLUSTER_NAME $SLURM_JOB_ID >> " + out + "/" + i + "-$SPIDERFLOW_XJOB_PART.txt\nsleep 1\n"
print(json.dumps({"id": a + ":" + str(100000 + int(i)), "user": "root", "time_limit_s": 120, "script": script,
                  "parts": [{"cluster": a, "nodes": 1, "gpus_per_node": 8, "ranks": 8},
                            {"cluster": b, "nodes": 1, "gpus_per_node": 8, "ranks": 8}]}))
PY
    curl -s -o /dev/null -w '%{http_code}' -X POST -H "Authorization: Bearer tok-$a" --data-binary "@$SF_TMP/job.json" "$URL/v1/xjobs"
}
epoch() { curl -s -H "Authorization: Bearer tok-tools" "$URL/metrics" | awk '/^spiderflow_broker_epoch / {print $2}'; }
# job_end I: "STATE RUNS" of job soak:I once it finished (completed or failed), else nothing; the
# broker's record of it is kept in ends/I.json (its history, for a job that ran twice).
mkdir -p "$SF_TMP/ends"
job_end() {
    local a b
    read -r a b <<<"${pairs[$1 % 3]}"
    curl -s -H "Authorization: Bearer tok-tools" "$URL/v1/xjobs/$a:$((100000 + $1))" >"$SF_TMP/ends/$1.json.new" 2>/dev/null
    python3 -c "import json,sys; j=json.load(open(sys.argv[1])); j['state'] in ('completed', 'failed') and print(j['state'], len(j.get('runs', [])))" \
        "$SF_TMP/ends/$1.json.new" 2>/dev/null && mv "$SF_TMP/ends/$1.json.new" "$SF_TMP/ends/$1.json"
}
# ends_up_to LAST: every job up to LAST finished; each one's end is written to ends.txt once, as
# soon as it is seen (the broker forgets finished jobs beyond keep_finished later on, so a job
# that ends late is looked for on every call, not only with its own wave).
ends_up_to() {
    local i e done=1
    for ((i = 0; i <= $1; i++)); do
        grep -q "^$i " "$SF_TMP/ends.txt" 2>/dev/null && continue
        e=$(job_end "$i")
        if [ -n "$e" ]; then echo "$i $e" >>"$SF_TMP/ends.txt"; else done=0; fi
    done
    [ "$done" = 1 ]
}

rss_line start
restarted=0
submitted=0
while [ "$submitted" -lt "$JOBS" ]; do
    n=$((JOBS - submitted < WAVE ? JOBS - submitted : WAVE))
    for ((k = 0; k < n; k++)); do
        code=$(submit "$submitted")
        [ "$code" = 201 ] || echo "soak_bench: job $submitted refused ($code)" >&2
        submitted=$((submitted + 1))
    done
    # The next wave once this one has finished (bounded: a stuck wave shows as lost at the end).
    within 120 ends_up_to $((submitted - 1)) || echo "soak_bench: a job up to $submitted not finished within 120 s" >&2
    # A sample every tenth of the jobs: flat is a curve, not two points.
    [ $((submitted % ((JOBS + 9) / 10))) = 0 ] && rss_line "after $submitted jobs (epoch $(epoch))"
    if [ "$restarted" = 0 ] && [ "$submitted" -ge $((JOBS / 3)) ]; then
        rss_line "before a clean restart of the broker ($submitted jobs)"
        stop_pid "$BROKER_PID"; start_broker || exit 1
        restarted=1
    elif [ "$restarted" = 1 ] && [ "$submitted" -ge $((2 * JOBS / 3)) ]; then
        rss_line "middle, before kill -9 of the broker ($submitted jobs)"
        kill -9 "$BROKER_PID"; wait "$BROKER_PID" 2>/dev/null; start_broker || exit 1
        restarted=2
    fi
done
within 300 ends_up_to $((JOBS - 1))
rss_line end

# The counts, from each job's end as the broker said it and the parts' own lines.
completed=$(awk '$2 == "completed"' "$SF_TMP/ends.txt" | sort -u -k1,1n | wc -l)
lost=$((JOBS - completed))
twice_runs=$(awk '$3 > 1' "$SF_TMP/ends.txt" | wc -l)
twice_parts=0
for ((i = 0; i < JOBS; i++)); do
    for p in 0 1; do [ "$(cat "$OUT/$i-$p.txt" 2>/dev/null | wc -l)" -gt 1 ] && twice_parts=$((twice_parts + 1)); done
done
# What is left on the clusters, once the agents carried out the last release and cancel orders.
left() {
    res=0 live=0
    for c in alpha beta gamma; do
        res=$((res + $(on "$c" scontrol -o show reservation 2>/dev/null | grep -c spiderflow-)))
        live=$((live + $(on "$c" squeue -h -t R,PD,CG -o %k 2>/dev/null | grep -c 'spiderflow-xjob ')))
    done
    [ "$res" = 0 ] && [ "$live" = 0 ]
}
within 60 left || for c in alpha beta gamma; do on "$c" scontrol -o show reservation 2>/dev/null | grep spiderflow- | cut -c1-200 | sed "s/^/soak: left on $c: /"; done
wall=$(($(date +%s) - t0))
# Each part's output went to its user's home (root here): this soak's, by its jobs' ids.
for ((i = 0; i < JOBS; i++)); do rm -f ~/spiderflow-*_$((100000 + i))-a*-p*.out; done
echo "soak: $JOBS cross-site jobs over 3 clusters in $wall s, broker restarted twice (clean stop, kill -9)"
echo "soak: completed $completed, lost $lost, run twice $twice_runs, part scripts started twice $twice_parts, reservations left $res, parts left $live"
echo "soak: VmRSS (KiB):"
sed 's/^/soak:   /' "$SF_TMP/rss.txt"
if [ "$lost" != 0 ] || [ "$twice_runs" != 0 ] || [ "$twice_parts" != 0 ] || [ "$res" != 0 ] || [ "$live" != 0 ]; then
    # What happened to each job that did not complete once, from its record at its end.
    for ((i = 0; i < JOBS; i++)); do
        twice=0
        for p in 0 1; do [ "$(cat "$OUT/$i-$p.txt" 2>/dev/null | wc -l)" -gt 1 ] && twice=1; done
        grep -q "^$i completed 1$" "$SF_TMP/ends.txt" && [ "$twice" = 0 ] && continue
        echo "soak: job $i: $(grep "^$i " "$SF_TMP/ends.txt" || echo 'no end seen'); part scripts started: $(cat "$OUT/$i-0.txt" 2>/dev/null | wc -l) $(cat "$OUT/$i-1.txt" 2>/dev/null | wc -l)"
        [ -f "$SF_TMP/ends/$i.json" ] && python3 -c "
import json, sys
j = json.load(open(sys.argv[1]))
print('soak:   reason:', j.get('reason', ''))
for e in j.get('events', []): print('soak:   ', e)" "$SF_TMP/ends/$i.json" | head -30
    done | head -80
    tail -20 "$SF_TMP/brokerd.log"
    exit 1
fi
exit 0
