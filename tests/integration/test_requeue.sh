#!/bin/bash
# Integration: a cross-site job survives the loss of a site's nodes. Three real Slurm clusters on
# localhost (alpha, beta, gamma: two nodes of 2 fake GPUs each), the broker and an agent per
# cluster; the job's tasks run Debian's PyTorch (gloo on CPU: torch_resume.py), which saves a
# checkpoint in its first run and loads it in a later one.
#   1. sbatch --llm-on-failure=requeue of 8 GPUs on alpha runs across alpha and a second cluster;
#      that cluster's slurmd and the part's processes are killed (-9) mid-run, as a lost node
#      would be. The job is queued again as one job, planned anew on alpha and the third cluster
#      with the same tp and pp, starts with SPIDERFLOW_ATTEMPT=2 and the previous layout, its
#      ranks load the checkpoint the first run saved, and it completes; `spiderflow jobs` shows
#      both runs, the lost nodes known as soon as slurmctld marks them not responding (not after
#      part_end_grace). Figure: the time from the kill to the job running again, against the first
#      start (sbatch to running).
#   2. A job that keeps failing ends after the bound (failure_requeues = 1), with the reason;
#      the broker is killed (-9) while it is queued again and restarted: the job is requeued
#      once, never twice, and is not lost.
#   3. The user's scancel of a part ends the job with --llm-on-failure=requeue too: no requeue.
export SF_GPUS_PER_NODE=2
. "$(dirname "$0")/federation.sh"
need_torch
fed_init alpha:an1,an2 beta:bn1,bn2 gamma:gn1,gn2
SETTLE=1
echo "requeue_settle = $SETTLE" >>"$SF_TMP/brokerd.conf"
# part_end_grace (60 s) and SlurmdTimeout (300 s) stay at their defaults: the lost part is
# reported as soon as slurmctld marks its nodes not responding, when the part's end does not
# reach them, long before either.
for c in alpha beta gamma; do echo "part_min_uid = 0" >>"$SF_TMP/$c/agent.conf"; done  # the test's user is root
fed_start
published() { [ "$(curl -sf -H 'Authorization: Bearer tok-tools' "$URL/v1/clusters" | python3 -c 'import json,sys; print(sum(1 for c in json.load(sys.stdin)["clusters"] if c["published"]))')" = 3 ]; }
expect "three agents publish their clusters" within 30 published
expect "alpha's job_submit sees the federation" within 10 grep -q '"epoch"' "$SF_TMP/alpha/federation-state.json"

program=$SF_SRCDIR/tests/integration/torch_resume.py
llm=(--llm-model=gpt3-1.3b --llm-global-batch=32 --llm-on-failure=requeue)
part_of() { xjob_field "$1" "[p['$3'] for p in b['parts'] if p['cluster'] == '$2'][0]"; }
run_is() { [ "$(xjob_field "$1" "b['run']")" = "$2" ] && xjob_state_is "$1" "$3"; }
ranks_written() { [ "$(ls "$1" | grep -c "^run-$2-rank-")" = "$3" ]; }
# lose_nodes CLUSTER NODE...: what a lost node does to Slurm: its slurmd, the job's slurmstepd and
# the job's tasks on it die at once (-9), and slurmctld hears nothing more from it.
lose_nodes() {
    local c=$1 n p
    shift
    for n in "$@"; do kill -9 "$(cat "$SF_TMP/$c/slurmd-$n.pid")" 2>/dev/null; done
    for p in $(pgrep -f slurmstepd); do
        ls -l "/proc/$p/fd" 2>/dev/null | grep -q "$SF_TMP/$c/" && kill -9 "$p" 2>/dev/null
    done
    for p in $(pgrep -f "torch_resume.py $X"); do
        tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "SLURM_CLUSTER_NAME=$c" && kill -9 "$p" 2>/dev/null
    done
}

# --- 1. a site's nodes lost mid-run: requeued, planned anew without them, resumed -------------
X=$SF_TMP/lost
mkdir -p "$X"
printf '#!/bin/bash\nsrun %q %q %q\nrc=$?\ndate +%%s.%%N >%q/batch-end-$SLURM_CLUSTER_NAME-${SPIDERFLOW_ATTEMPT:-1}.txt\nexit $rc\n' "$torch_python" "$program" "$X" "$X" >"$X/train.sh"
t0=$(date +%s.%N)
home=$(on alpha sbatch --parsable "${llm[@]}" --gpus=8 -o "$X/job.out" "$X/train.sh" 2>"$X/sbatch.err")
expect "sbatch --gpus=8 --llm-on-failure=requeue on alpha is accepted across 2 clusters (got '$home': $(head -c 300 "$X/sbatch.err"))" \
    grep -q "across 2 clusters" "$X/sbatch.err"
expect "... and sbatch says what happens should a part fail" grep -q "at most 2 times, with SPIDERFLOW_ATTEMPT=2" "$X/sbatch.err"
xid=alpha:$home
expect "the job runs" within 120 xjob_state_is "$xid" running
first_start=$(python3 -c "print(round($(xjob_field "$xid" "b['runs'][0]['started_at']") - $t0, 1))")
expect "... all 8 ranks of run 1 trained and rank 0 saved the checkpoint" within 120 bash -c \
    "[ \$(ls '$X' | grep -c '^run-1-rank-') = 8 ] && [ -f '$X/checkpoint.pt' ]"
lost=$(xjob_field "$xid" "[p['cluster'] for p in b['parts'] if p['cluster'] != 'alpha'][0]")
left=$( [ "$lost" = beta ] && echo gamma || echo beta)
tp1=$(awk '{print $5}' "$X/run-1-rank-0.txt") pp1=$(awk '{print $6}' "$X/run-1-rank-0.txt")
lost_nodes=$(part_of "$xid" "$lost" node_list | tr -d "[]',")
echo "# run 1: alpha and $lost, tp=$tp1 pp=$pp1; losing $lost's nodes $lost_nodes"
# When alpha's part tells its agent that its script failed (its comment), and when the broker
# hears of it: stages of the time to run again, printed below.
( marked() { on alpha squeue -h -j "$home" -o %k | grep -q ended; }
  t=$(wait_for 30 marked) && echo "$t" >"$X/marked-after"
  t=$(wait_for 30 xjob_state_is "$xid" ending) && echo "$t" >"$X/ending-after" ) &
stages=$!
t_kill=$(date +%s.%N)
lose_nodes "$lost" $lost_nodes
wait "$stages"
echo "# alpha's part marked failed (its comment) $(cat "$X/marked-after" 2>/dev/null) s after the loss; the broker ended the run $(python3 -c "print(round($(cat "$X/marked-after" 2>/dev/null || echo 0) + $(cat "$X/ending-after" 2>/dev/null || echo 0), 1))") s after"
not_responding() { [ "$(on "$lost" sinfo -h -N -o '%t' | grep -c '\*$')" = 2 ]; }
seen=$(wait_for 60 not_responding)
echo "# alpha's ranks saw their peers gone $(python3 -c "import glob; t = [float(open(f).read()) - $t_kill for f in glob.glob('$X/lost-peer-rank-*.txt')]; print(round(min(t), 1), 'to', round(max(t), 1))" 2>/dev/null) s after the loss; its batch script ended $(python3 -c "print(round(float(open('$X/batch-end-alpha-1.txt').read()) - $t_kill, 1))" 2>/dev/null) s after"
echo "# $lost's slurmctld marks the lost nodes not responding ${seen:-(not within 60)} s after the loss: $(on "$lost" sinfo -h -N -o '%N=%t' | tr '\n' ' ')"
expect "the lost part's peers fail, and the job is queued again as one job (run 2)" within 60 bash -c \
    "[ \"\$(curl -s -H 'Authorization: Bearer tok-tools' '$URL/v1/xjobs/$xid' | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"run\"])')\" = 2 ]"
took=$(wait_for 120 run_is "$xid" 2 running)
expect "... planned anew and running again within 120 s of the loss (took ${took:-more than 120} s)" test -n "$took"
expect "... its lost nodes known without waiting out part_end_grace (60 s): running again within 40 s (took ${took:-more than 120} s)" \
    python3 -c "import sys; sys.exit(0 if ${took:-999} < 40 else 1)"
# From the broker's clock (whole seconds): when run 2 had every part running.
again=$(python3 -c "print(round($(xjob_field "$xid" "b['runs'][1]['started_at']") - $t_kill, 1))")
clusters2=$(xjob_field "$xid" "','.join(sorted(p['cluster'] for p in b['parts']))")
expect "... on alpha and $left, without $lost (got $clusters2)" test "$clusters2" = "alpha,$left"
expect "... and completes once its ranks resumed" within 120 xjob_state_is "$xid" completed
expect "... its 8 ranks ran again with SPIDERFLOW_ATTEMPT=2" ranks_written "$X" 2 8
expect "... every rank of run 2 loaded the checkpoint run 1 saved" \
    test "$(grep -c ' checkpoint=loaded ' "$X"/run-2-rank-*.txt | awk -F: '{s += $2} END {print s}')" = 8
expect "... with the same tp and pp (tp=$tp1 pp=$pp1)" \
    test "$(awk '{print $5, $6}' "$X"/run-2-rank-*.txt | sort -u)" = "$tp1 $pp1"
expect "... and the previous layout, naming $lost" grep -q "previous=tp=$tp1,pp=$pp1,.*$lost" "$X/run-2-rank-0.txt"
expect "... ranks of run 2 on alpha and $left only" \
    test "$(awk '{print $1}' "$X"/run-2-rank-*.txt | sort -u | tr '\n' ' ')" = "alpha $left "
"$SF_BUILDDIR/spiderflow" jobs --broker "$URL" --token-file "$SF_TMP/reader.token" "$xid" >"$X/jobs.txt" 2>&1
expect "\`spiderflow jobs\` shows run 1 on $lost and why it ended, and run 2 on $left" bash -c \
    "grep -q '  run 1  tp=$tp1 pp=$pp1 .* on alpha:.*,$lost:.*until .*: ' '$X/jobs.txt' && grep -q '  run 2  tp=$tp1 pp=$pp1 .*$left' '$X/jobs.txt'"
expect "no reservation is left on any cluster" within 30 no_reservation_left
"$SF_BUILDDIR/spiderflow" jobs --broker "$URL" --token-file "$SF_TMP/reader.token" "$xid" | grep -E '^  20' | sed 's/^/# /'
echo "# requeue after a lost site: first start (sbatch to running) $first_start s; loss to running again $again s (target: within 2x the first start, $(python3 -c "print(round(2 * $first_start, 1))") s); requeue_settle $SETTLE s of it"

# --- 2. a job that keeps failing ends after the bound; the broker killed while it is requeued --
echo "failure_requeues = 1" >>"$SF_TMP/alpha/spiderflow.conf"
on alpha scontrol reconfigure
sleep 1
F=$SF_TMP/failing
mkdir -p "$F"
printf '#!/bin/bash\nsrun bash -c "sleep 4; exit 3"\n' >"$F/train.sh"
home2=$(on alpha sbatch --parsable "${llm[@]}" --gpus=8 -o "$F/job.out" "$F/train.sh" 2>"$F/sbatch.err")
fid=alpha:$home2
expect "a job whose program always fails is accepted (got '$home2': $(head -c 200 "$F/sbatch.err"))" grep -q "at most 1 times" "$F/sbatch.err"
in_run() { [ "$(xjob_field "$1" "b['run']")" = "$2" ]; }
expect "... its first run fails and it is queued again" within 120 in_run "$fid" 2
kill -9 "$BROKER_PID"; wait "$BROKER_PID" 2>/dev/null  # while it is planned anew and started again
start_broker || exit 1
state=$(xjob_field "$fid" "b['run'], b['state']")
expect "... after kill -9 and a restart of the broker, it is still in run 2, not lost (got: $state)" \
    bash -c "[[ '$state' =~ ^2\ (queued|negotiating|reserving|starting|running|ending|failed)$ ]]"
expect "... and ends after its second run, naming the bound" within 180 xjob_state_is "$fid" failed
reason=$(xjob_field "$fid" "b['reason']")
expect "... the reason says the program failed and the bound (got: $reason)" \
    bash -c "[[ '$reason' == *'FAILED, exit code 3'*'ended after 2 runs: --llm-on-failure=requeue allows 1 requeues'* ]]"
counts=$(xjob_field "$fid" "b['failure_requeues'], len(b['runs']), [r['number'] for r in b['runs']]")
expect "... requeued once, never twice: two runs (failure_requeues, runs, their numbers: $counts)" test "$counts" = "1 2 [1, 2]"
sed -i '/^failure_requeues/d' "$SF_TMP/alpha/spiderflow.conf"
on alpha scontrol reconfigure

# --- 3. the user's scancel of a part ends the job: no requeue -----------------------------------
S=$SF_TMP/scancel
mkdir -p "$S"
printf '#!/bin/bash\nsrun sleep 300\n' >"$S/train.sh"
home3=$(on alpha sbatch --parsable "${llm[@]}" --gpus=8 -o "$S/job.out" "$S/train.sh" 2>"$S/sbatch.err")
sid=alpha:$home3
expect "a third job with --llm-on-failure=requeue runs" within 120 xjob_state_is "$sid" running
other=$(xjob_field "$sid" "[p['cluster'] for p in b['parts'] if p['cluster'] != 'alpha'][0]")
on "$other" scancel "$(part_of "$sid" "$other" job_id)"
expect "the user's scancel of its part on $other ends the job, naming it" within 60 xjob_state_is "$sid" failed
outcome=$(xjob_field "$sid" "b['run'], b['failure_requeues'], b['reason']")
expect "... and it was not requeued (run, requeues, reason: $outcome)" bash -c "[[ \"\$1\" == \"1 0 part 1 on $other ended: CANCELLED\"* ]]" _ "$outcome"

expect "no agent crashed" bash -c "! grep -qi 'terminate\|abort\|segmentation' $SF_TMP/*/agent.log"
if [ "$FAILS" -ne 0 ]; then
    "$SF_BUILDDIR/spiderflow" jobs --broker "$URL" --token-file "$SF_TMP/reader.token" "$xid" 2>&1 | tail -30
    echo "--- $X/job.out"; tail -20 "$X/job.out"
    for c in alpha beta gamma; do echo "--- $c agent log"; tail -15 "$SF_TMP/$c/agent.log"; done
    echo "--- broker log"; tail -20 "$SF_TMP/brokerd.log"
fi
rm -f ~/spiderflow-alpha_*.out 2>/dev/null
echo "$FAILS failure(s)"
[ "$FAILS" -eq 0 ]
