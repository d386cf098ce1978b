#!/bin/bash
# Integration: select/spiderflow_cons_tres and sched/spiderflow inside a real slurmctld.
# One cluster of 8 nodes under 4 leaf switches (2 spines), with TopologyParam=TopoOptional (a
# common site setting: cons_tres places by node order unless a job asks for --switches). The
# same job stream runs twice, once with select/cons_tres + sched/backfill and once with ours:
#  - a planned 4-node, 2-stage job under the same background load: ours lands on 2 leaf
#    switches with each stage under one switch; cons_tres alone scatters it;
#  - unplanned jobs (--gpus over nodes, per-node GPU counts that differ, one node) land on the
#    same nodes with the same GPUs either way;
#  - a CoreCnt reservation and a hetjob submission: what each setup answers.
# Then, with ours: slurmctld restarts with running jobs and keeps them, `scontrol reconfigure`
# is safe, and the agent inside sched/spiderflow publishes this cluster to a real brokerd.
. "$(dirname "$0")/select_sched_cluster.sh"
FAILS=0
sel_start_munge_and_broker
# run_stream LABEL: the job stream on a fresh controller state; results in $SF_TMP/LABEL.*
run_stream() {
    local label=$1 bg1 bg2 planned u1 u2 u3
    rm -rf "$D/state" && mkdir -p "$D/state"
    sf_start_slurm "$D" "${SEL_NODES[@]}" || { not_ok "$label: cluster up"; return 1; }
    # Background load: n1 (leaf l1) and n3 (leaf l2) taken.
    bg1=$(submit -w n1 -N1 --gres=gpu:8 --exclusive)
    bg2=$(submit -w n3 -N1 --gres=gpu:8 --exclusive)
    within 20 running "$bg1" && within 20 running "$bg2" || not_ok "$label: background jobs running"
    planned=$(submit --llm-plan="$SF_TMP/plan.json" --gpus=32)
    within 30 running "$planned" || not_ok "$label: planned job running"
    squeue -h -j "$planned" -o %N >"$SF_TMP/$label.planned"
    # Programs linked with the public libslurm.so load every select plugin of PluginDir and unpack
    # jobs and nodes through the configured one: job-plan and the standalone agent.
    { "$SF_BUILDDIR/spiderflow" job-plan "$planned" --format text; echo "rc=$?"; } >"$SF_TMP/$label.jobplan" 2>&1
    { "$SF_BUILDDIR/spiderflow-agent" --config "$D/agent.conf" --dry-run; echo "rc=$?"; } >"$SF_TMP/$label.agent" 2>&1
    scancel "$planned"
    within 20 bash -c "! squeue -h -j $planned -t R,CG | grep -q ."
    # Unplanned: whole nodes, --gpus spread over 2 nodes with 12 GPUs (8 + 4), a part of one node.
    u1=$(submit -N2 --gres=gpu:8)
    within 20 running "$u1"
    u2=$(submit -N2 --gpus=12)
    within 20 running "$u2"
    u3=$(submit -N1 --gres=gpu:2)
    within 20 running "$u3"
    { placement "$u1"; echo; placement "$u2"; echo; placement "$u3"; echo; } >"$SF_TMP/$label.unplanned"
    # A CoreCnt reservation (SLURM-NOTES: Slurm keys it on the select plugin's id).
    scontrol create reservation ReservationName=cores StartTime=now Duration=10 Users=root CoreCnt=2 Nodes=n8 \
        >"$SF_TMP/$label.corecnt" 2>&1
    echo "rc=$?" >>"$SF_TMP/$label.corecnt"
    scontrol delete reservation=cores >/dev/null 2>&1
    # The refusal is scontrol's own check of SelectType: slurmctld itself takes the request.
    sed 's#^SelectType=.*#SelectType=select/cons_tres#' "$D/slurm.conf" >"$SF_TMP/client-slurm.conf"
    SLURM_CONF=$SF_TMP/client-slurm.conf scontrol create reservation ReservationName=cores2 StartTime=now Duration=10 \
        Users=root CoreCnt=2 Nodes=n8 >"$SF_TMP/$label.corecnt-api" 2>&1
    echo "rc=$?" >>"$SF_TMP/$label.corecnt-api"
    scontrol delete reservation=cores2 >/dev/null 2>&1
    # A heterogeneous job (Slurm keys it on SchedulerType being exactly sched/backfill).
    sbatch --parsable -o /dev/null -n1 : -n1 --wrap true >"$SF_TMP/$label.hetjob" 2>&1
    echo "rc=$?" >>"$SF_TMP/$label.hetjob"
}

# --- 1. cons_tres and backfill alone ------------------------------------------------------------
use_plugins select/cons_tres sched/backfill
run_stream base
scancel -u root 2>/dev/null
sleep 1
stop_slurm

# --- 2. ours --------------------------------------------------------------------------------------
use_plugins select/spiderflow_cons_tres sched/spiderflow
echo "controller_agent = $D/agent.conf" >>"$D/spiderflow.conf"
echo "part_fence_after = 4" >>"$D/agent.conf"   # section 3: the fence inside slurmctld
# A prolog that records the traffic level a job starts with (section 4): what our own prolog
# hook (the tc class, context_job_script.cpp) reads.
printf '#!/bin/sh\necho "level=$SPANK_SPIDERFLOW_TRAFFIC_LEVEL" >%s/out/prolog-$SLURM_JOB_ID.txt\n' "$D" >"$D/prolog.sh"
chmod +x "$D/prolog.sh"
echo "Prolog=$D/prolog.sh" >>"$D/slurm.conf"
run_stream ours
expect "slurmctld loaded select/spiderflow_cons_tres (forwarding to cons_tres)" \
    grep -q "select/spiderflow_cons_tres forwards to select/cons_tres" "$D/slurmctld.log"
expect "slurmctld started backfill through sched/spiderflow" grep -q "sched/spiderflow: sched/backfill started" "$D/slurmctld.log"

base_nodes=$(cat "$SF_TMP/base.planned")
our_nodes=$(cat "$SF_TMP/ours.planned")
echo "# planned 4-node job, 2 stages; background jobs on n1 (l1) and n3 (l2)"
echo "#   cons_tres alone: $base_nodes ($(leaf_switches "$base_nodes") leaf switches)"
echo "#   ours:            $our_nodes ($(leaf_switches "$our_nodes") leaf switches)"
expect "planned job on 2 leaf switches with ours ($our_nodes)" test "$(leaf_switches "$our_nodes")" = 2
expect "planned job: stage 1 and stage 2 each under one leaf (n[5-8])" test "$our_nodes" = "n[5-8]"
expect "cons_tres alone scatters it over more leaf switches ($base_nodes)" test "$(leaf_switches "$base_nodes")" -gt 2
expect "the log says where the plan put it" grep -q "placed as planned on n\[5-8\] (2 leaf switches, 0 stages split" "$D/slurmctld.log"
echo "# unplanned placements: cons_tres alone | ours"
paste -d'|' "$SF_TMP/base.unplanned" "$SF_TMP/ours.unplanned" | sed 's/^/#   /'
expect "unplanned jobs: the same nodes and GPUs as cons_tres alone" cmp -s "$SF_TMP/base.unplanned" "$SF_TMP/ours.unplanned"
expect "per-node GPU counts that differ (8 + 4) still allowed" grep -q "gpu:4" "$SF_TMP/ours.unplanned"
expect "with ours, spiderflow job-plan reads the planned job ($(grep -m1 'error:\|rc=' "$SF_TMP/ours.jobplan"))" \
    bash -c "grep -q '^rc=0' '$SF_TMP/ours.jobplan' && ! grep -q 'error:' '$SF_TMP/ours.jobplan'"
expect "with ours, the standalone agent reads the cluster ($(grep -m1 'error:\|rc=' "$SF_TMP/ours.agent"))" \
    bash -c "grep -q '^rc=0' '$SF_TMP/ours.agent' && ! grep -q 'error:' '$SF_TMP/ours.agent'"
echo "# CoreCnt reservation: cons_tres: $(tr '\n' ' ' <"$SF_TMP/base.corecnt")| ours: $(tr '\n' ' ' <"$SF_TMP/ours.corecnt")"
expect "CoreCnt reservation accepted with cons_tres alone" grep -q "rc=0" "$SF_TMP/base.corecnt"
expect "with ours scontrol refuses CoreCnt itself (it checks the SelectType name)" grep -q "rc=1" "$SF_TMP/ours.corecnt"
expect "... and slurmctld accepts the same reservation (doc/slurm.md's workaround)" grep -q "rc=0" "$SF_TMP/ours.corecnt-api"
echo "# hetjob: backfill: $(tr '\n' ' ' <"$SF_TMP/base.hetjob")| sched/spiderflow: $(tr '\n' ' ' <"$SF_TMP/ours.hetjob")"
expect "hetjob accepted under sched/backfill" grep -q "rc=0" "$SF_TMP/base.hetjob"
expect "hetjob refused under sched/spiderflow, with Slurm's reason" grep -qi "heterogeneous\|not supported\|rc=1" "$SF_TMP/ours.hetjob"

# --- 3. the agent inside sched/spiderflow publishes to the broker ---------------------------------
published() { curl -sf -H "Authorization: Bearer tok-tools" "$URL/v1/federation" | grep -q '"n8"'; }
expect "sched/spiderflow's agent publishes this cluster to brokerd" within 20 published
expect "it keeps job_submit's site-state cache" within 20 test -s "$D/federation-state.json"
# The parts' fence runs inside slurmctld as in spiderflow-agent (services/agent/part_fence.h), on a
# thread of its own: the broker silent (stopped) past part_fence_after, the agent fences this
# cluster's parts; the broker back, it takes parts again.
kill -STOP "$BROKER_PID"
expect "the broker silent past part_fence_after (4 s), sched/spiderflow's agent fences this cluster's parts" \
    within 30 grep -q "sched/spiderflow agent: no answer from the broker for" "$D/slurmctld.log"
kill -CONT "$BROKER_PID"
expect "... and takes parts again once the broker answers" \
    within 60 grep -q "sched/spiderflow agent: the broker answers again" "$D/slurmctld.log"

# --- 4. coflow levels: pending cross-site jobs get traffic levels, smallest WAN bottleneck first --
# Two held jobs get AdminComments as job_submit writes them for plans that cross to "far" (an
# admin may set AdminComment; here it stands in for the federation's hand-off).
summary() {  # summary PLAN.json: the AdminComment line carrying that plan (plan_summary.h's format)
    python3 - "$1" <<'PY'
import base64, json, sys, zlib
text = open(sys.argv[1]).read()
p = json.loads(text)
d = p["degrees"]
print("spiderflow plan model=%s tp=%d pp=%d dp=%d mb=%d nodes=%dx8 iter_s=1 plan=z1:%s" % (
    p["job"]["model"]["name"], d["tp"], d["pp"], d["dp"], d["micro_batch"], d["world_size"] // 8,
    base64.b64encode(zlib.compress(text.encode(), 9)).decode()))
PY
}
for m in llama3-8b gpt3-13b; do
    "$SF_BUILDDIR/spiderflow" plan --topology "$SF_TMP/federation.json" --model "$m" --global-batch 256 --seq-len 2048 \
        --gpus 96 >"$SF_TMP/x-$m.json" 2>/dev/null
done
x1=$(sbatch --parsable -H -o /dev/null --wrap true 2>/dev/null)
x2=$(sbatch --parsable -H -o /dev/null --wrap true 2>/dev/null)
scontrol update job="$x1" AdminComment="$(summary "$SF_TMP/x-llama3-8b.json")"
scontrol update job="$x2" AdminComment="$(summary "$SF_TMP/x-gpt3-13b.json")"
level_of() { sed -n "s/.*sched\/spiderflow: job $1 traffic level \([0-9]\).*/\1/p" "$D/slurmctld.log" | tail -1; }
expect "sched/spiderflow gives both pending cross-site jobs a traffic level" within 20 bash -c \
    "grep -q 'job $x1 traffic level' '$D/slurmctld.log' && grep -q 'job $x2 traffic level' '$D/slurmctld.log'"
echo "# coflow levels: job $x1 (llama3-8b, 96 GPUs) level $(level_of "$x1"); job $x2 (gpt3-13b, 96 GPUs) level $(level_of "$x2")"
expect "the two levels differ (one coflow order)" test "$(level_of "$x1")" != "$(level_of "$x2")"
scontrol release "$x1"
expect "the job starts with its level: its prolog sees SPANK_SPIDERFLOW_TRAFFIC_LEVEL=$(level_of "$x1")" \
    within 30 grep -q "^level=$(level_of "$x1")\$" "$D/out/prolog-$x1.txt"
scancel "$x2"

# --- 5. restart with running jobs, reconfigure ----------------------------------------------------
keep=$(squeue -h -t R -o %i | sort | tr '\n' ' ')
ctld=${SF_PIDS[${#MUNGE_PIDS[@]}]}
kill "$ctld"
for _ in $(seq 50); do kill -0 "$ctld" 2>/dev/null || break; sleep 0.1; done
SPIDERFLOW_CONF=$D/spiderflow.conf slurmctld -D -f "$D/slurm.conf" >>"$D/slurmctld.out" 2>&1 &
SF_PIDS[${#MUNGE_PIDS[@]}]=$!
within 30 scontrol ping
after=$(squeue -h -t R -o %i | sort | tr '\n' ' ')
expect "slurmctld restart keeps the running jobs ($keep)" test -n "$keep" -a "$keep" = "$after"
scontrol reconfigure
sleep 2
expect "scontrol reconfigure: slurmctld still answers" scontrol ping
expect "reconfigure reached sched/spiderflow's agent" within 10 bash -c "grep -c 'sched/spiderflow agent: cluster' '$D/slurmctld.log' | grep -qv '^1$'"
sbatch --parsable -o /dev/null --llm-plan="$SF_TMP/plan.json" --gpus=32 --wrap 'sleep 60' >/dev/null 2>"$SF_TMP/after.err"
expect "after restart and reconfigure, a planned job is still accepted and planned" grep -q "planned llama3-8b" "$SF_TMP/after.err"
scancel -u root 2>/dev/null
expect "no slurmctld error from our select and sched plugins" \
    bash -c "! grep -E 'error: spiderflow: (select|sched|job [0-9]+: plan-aware)|fatal' '$D/slurmctld.log'"
stop_slurm
expect "sched/spiderflow stops with slurmctld (thread joined, backfill stopped)" grep -q "sched/spiderflow: stopped" "$D/slurmctld.log"

echo "# $FAILS failed"
[ "$FAILS" = 0 ]
