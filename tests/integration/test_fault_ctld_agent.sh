#!/bin/bash
# Faults on a site's own daemons while a cross-site job is handed over and started. Two real
# Slurm clusters on localhost (alpha, beta: two nodes of 8 fake GPUs each), the broker and an
# agent per cluster; a plain sbatch of 32 GPUs on alpha, which only both clusters hold:
#   1. alpha's agent is killed (-9) right after sbatch, while it hands the held job to the broker,
#      and started again: the job is handed over once, under its one id;
#   2. beta's slurmctld is restarted while the broker seeks the common start (its part's will-run,
#      reservation and submission meet a controller that is away; under load the parts may be
#      submitted already, waiting for the common start), and alpha's agent is killed (-9)
#      again once the parts are being started, while it releases the held home job into its
#      reservation, then started again.
# The job starts exactly once (one run, one Slurm job per part, each part's script started once),
# both parts run together, and scancel of the home job leaves no reservation and no part.
# Figures: the restarts to every part running.
. "$(dirname "$0")/federation.sh"
fed_init alpha:an1,an2 beta:bn1,bn2
# The common start 10 s ahead: the faults land while the parts wait for it.
sed -i "s/^coalloc_lead = .*/coalloc_lead = 10/" "$SF_TMP/brokerd.conf"
for c in alpha beta; do echo "part_min_uid = 0" >>"$SF_TMP/$c/agent.conf"; done  # the test's user is root
fed_start
t_test=$(date +%s)
published() { [ "$(curl -sf -H 'Authorization: Bearer tok-tools' "$URL/v1/clusters" | python3 -c 'import json,sys; print(sum(1 for c in json.load(sys.stdin)["clusters"] if c["published"]))')" = 2 ]; }
expect "both agents publish their clusters" within 30 published
expect "alpha's job_submit sees the federation" within 10 grep -q '"epoch"' "$SF_TMP/alpha/federation-state.json"
now() { date +%s.%N; }
state_in() { local s; s=$(xjob_field "$1" "b['state']" 2>/dev/null); [[ " $2 " == *" $s "* ]]; }

X=$SF_TMP/x
mkdir -p "$X"
printf '#!/bin/bash\necho "$SLURM_CLUSTER_NAME $SLURM_JOB_ID $(date +%%s.%%N)" >>%s/start-$SLURM_CLUSTER_NAME.txt\nsleep 300\n' "$X" >"$X/train.sh"

# --- 1. alpha's agent killed while it hands the job over ---------------------------------------
home=$(on alpha sbatch --parsable --llm-model=llama3-8b --llm-global-batch=64 --gpus=32 -o "$X/home.out" "$X/train.sh" 2>"$X/sbatch.err")
kill -9 "$AGENT_alpha"; wait "$AGENT_alpha" 2>/dev/null
xid=alpha:$home
expect "sbatch --gpus=32 on alpha is accepted across 2 clusters (got '$home': $(head -c 300 "$X/sbatch.err"))" \
    grep -q "across 2 clusters" "$X/sbatch.err"
handed_before=$(grep -c "handed to the broker as cross-site job $xid" "$SF_TMP/alpha/agent.log")
echo "# alpha's agent killed -9 right after sbatch (it had handed the job over: $handed_before)"
expect "... the home job waits held meanwhile" test "$(on alpha squeue -h -j "$home" -o %T)" = PENDING
start_agent alpha
known() { [ "$(xjob_field "$xid" "len(b['parts'])")" = 2 ]; }
expect "the restarted agent hands the job to the broker" within 30 known
expect "... once, under its id (hand-over lines in alpha's log: $(grep -c "handed to the broker as cross-site job $xid" "$SF_TMP/alpha/agent.log"))" \
    test "$(grep -c "handed to the broker as cross-site job $xid" "$SF_TMP/alpha/agent.log")" = 1
xjobs_for_home() { curl -s -H "Authorization: Bearer tok-tools" "$URL/v1/xjobs" | python3 -c "import json,sys; print(sum(1 for j in json.load(sys.stdin)['xjobs'] if j['id'] == '$xid'))"; }
expect "... the broker holds one job for it" test "$(xjobs_for_home)" = 1

# --- 2. beta's slurmctld restarted while the parts are reserved and submitted; alpha's agent
# killed while it releases the held home job into its reservation ------------------------------
# Negotiating and reserving take a second or two on an idle machine, less than one poll under load:
# starting (the parts submitted, waiting for the common start 10 s ahead) is as good for the faults.
expect "the broker seeks the common start or has reserved it" within 60 state_in "$xid" "negotiating reserving starting"
ctld=$(cat "$SF_TMP/beta/slurmctld.pid")
t_fault=$(now)
kill "$ctld"
for _ in $(seq 100); do kill -0 "$ctld" 2>/dev/null || break; sleep 0.1; done
echo "# beta's slurmctld stopped while the job is $(xjob_field "$xid" "b['state']")"
sleep 2   # beta's agent meets a controller that is away for a cycle or two
( SF_IN_NETNS= SF_IN_ROOT= sf_exec slurmctld -D -i -f "$SF_TMP/beta/slurm.conf" >>"$SF_TMP/beta/slurmctld.out" 2>&1 ) &
SF_PIDS+=($!)
expect "the parts are being started (submitted into their reservations)" within 60 state_in "$xid" "starting running"
kill -9 "$AGENT_alpha"; wait "$AGENT_alpha" 2>/dev/null
echo "# alpha's agent killed -9 while the job is $(xjob_field "$xid" "b['state']") (the home job released into its reservation: $(grep -c "part 0 of $xid is the held job" "$SF_TMP/alpha/agent.log"))"
start_agent alpha
t_back=$(now)
ctld_up() { on beta scontrol ping | grep -q UP; }
expect "beta's slurmctld is back" within 30 ctld_up
took=$(wait_for 120 parts_running "$xid" alpha beta)
expect "every part runs (${took:-more than 120} s after the restarts)" test -n "$took"
echo "# beta's slurmctld restarted and alpha's agent killed mid-start: every part running $(python3 -c "print(round($t_back - $t_fault + ${took:-0}, 1))") s after the first fault, ${took:-?} s after the agent's restart"
expect "... the broker says running" within 10 xjob_state_is "$xid" running
expect "... once: one run ($(xjob_field "$xid" "len(b['runs'])"))" test "$(xjob_field "$xid" "len(b['runs'])")" = 1
expect "... one Slurm job per part: the home job on alpha, one on beta (got $(part_jobs_of "$xid" alpha) $(part_jobs_of "$xid" beta))" \
    test "$(part_jobs_of "$xid" alpha) $(part_jobs_of "$xid" beta)" = "1 1"
started_once() { [ "$(cat "$X/start-alpha.txt" 2>/dev/null | wc -l) $(cat "$X/start-beta.txt" 2>/dev/null | wc -l)" = "1 1" ]; }
expect "... each part's script started once" within 20 started_once
skew=$(python3 -c "print(round(abs(float(open('$X/start-alpha.txt').read().split()[2]) - float(open('$X/start-beta.txt').read().split()[2])), 2))" 2>/dev/null)
echo "# skew between the parts' scripts after the faults: ${skew:-?} s"

on alpha scancel "$home"
expect "scancel of the home job ends the job" within 60 xjob_state_is "$xid" failed
expect "no reservation is left on either cluster" within 30 no_reservation_left
part_jobs_live() { for c in alpha beta; do on "$c" squeue -h -t R,PD,CG -o %k; done | grep -c 'spiderflow-xjob '; }
no_parts() { [ "$(part_jobs_live)" = 0 ]; }
expect "no part is left" within 30 no_parts
expect "no agent crashed" bash -c "! grep -qi 'terminate\|abort\|segmentation' $SF_TMP/*/agent.log"
echo "# wall time $(($(date +%s) - t_test)) s"
if [ "$FAILS" -ne 0 ]; then
    "$SF_BUILDDIR/spiderflow" jobs --broker "$URL" --token-file "$SF_TMP/reader.token" "$xid" 2>&1 | tail -20
    for c in alpha beta; do echo "--- $c agent log"; tail -20 "$SF_TMP/$c/agent.log"; done
    echo "--- broker log"; tail -20 "$SF_TMP/brokerd.log"
fi
rm -f ~/spiderflow-alpha_"$home"-*.out 2>/dev/null
echo "$FAILS failure(s)"
[ "$FAILS" -eq 0 ]
