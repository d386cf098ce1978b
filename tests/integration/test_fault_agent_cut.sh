#!/bin/bash
# Fault: one site cut off from the broker. Three real Slurm clusters on localhost (alpha, beta,
# gamma: two nodes of 2 fake GPUs each); beta and gamma run (slurmctld, slurmd, jobs, agent) in
# network namespaces of their own (netns_link.sh) whose link to the broker the test cuts: every
# packet dropped both ways, so the agent's calls hang to their timeouts as behind a dead WAN link.
# A plain sbatch --llm-on-failure=requeue of 8 GPUs on alpha runs across alpha and one of them (R).
#   1. R cut while the job is being co-allocated (its parts reserved, the common start coalloc_lead
#      ahead), past cluster_silent_after: the broker ends the job before its start, once (failed,
#      naming R: a job that never ran is not requeued), so no part runs anywhere; alpha's
#      reservation goes at once, and R's agent removes R's within part_fence_after (the fence);
#      the link back, nothing changes and nothing is left.
#   2. A second job, R cut while it runs: the broker ends alpha's part after cluster_silent_after
#      and R's agent ends R's part itself after part_fence_after, so neither runs alone for more
#      than a few seconds; the job is planned anew without R and runs again once (run 2 on alpha
#      and the third cluster); R's part never runs beside run 2; the link back, R's late word
#      (ISOLATED) changes nothing; no reservation is left.
# Figures: how long a part ran alone, cut to fence, cut to running again.
# FENCE=0 runs it with the fence off (the agent before it): section 2 then fails.
export SF_GPUS_PER_NODE=2
. "$(dirname "$0")/federation.sh"
. "$(dirname "$0")/netns_link.sh"
netns_site beta gamma
fed_init alpha:an1,an2 beta:bn1,bn2 gamma:gn1,gn2
SILENT=15
FENCE=${FENCE:-$SILENT}
# The common start far enough ahead that a cut after the parts reserved is noticed before it.
LEAD=25
sed -i "s/^coalloc_lead = .*/coalloc_lead = $LEAD/" "$SF_TMP/brokerd.conf"
printf 'cluster_silent_after = %s\nrequeue_settle = 1\n' "$SILENT" >>"$SF_TMP/brokerd.conf"
for c in alpha beta gamma; do
    # The test's user is root; KillWait here is 2 s.
    printf 'part_min_uid = 0\npart_end_grace = 5\npart_fence_after = %s\n' "$FENCE" >>"$SF_TMP/$c/agent.conf"
done
fed_start
t_test=$(date +%s)
published() { [ "$(curl -sf -H 'Authorization: Bearer tok-tools' "$URL/v1/clusters" | python3 -c 'import json,sys; print(sum(1 for c in json.load(sys.stdin)["clusters"] if c["published"]))')" = 3 ]; }
expect "three agents publish their clusters, two of them from their namespaces" within 30 published
expect "alpha's job_submit sees the federation" within 10 grep -q '"epoch"' "$SF_TMP/alpha/federation-state.json"

llm=(--llm-model=gpt3-1.3b --llm-global-batch=32 --llm-on-failure=requeue)
now() { date +%s.%N; }
secs() { python3 -c "print(round($2 - $1, 1))"; }
state_in() { local s; s=$(xjob_field "$1" "b['state']"); [[ " $2 " == *" $s "* ]]; }
part_of() { xjob_field "$1" "[p['$3'] for p in b['parts'] if p['cluster'] == '$2'][0]"; }
runs_of() { xjob_field "$1" "len(b['runs'])"; }
running_parts() {  # CLUSTER: the cross-site part jobs running there
    on "$1" squeue -h -t R -o '%i %k' 2>/dev/null | grep -c 'spiderflow-xjob '
}

# --- 1. cut during co-allocation ---------------------------------------------------------------
# submit DIR: the home job's id; sets xid, R (the other cluster) and O (the third)
submit() {
    mkdir -p "$1"
    printf '#!/bin/bash\nsrun sleep 600\n' >"$1/train.sh"
    home=$(on alpha sbatch --parsable "${llm[@]}" --gpus=8 -o "$1/job.out" "$1/train.sh" 2>"$1/sbatch.err")
    xid=alpha:$home
    expect "sbatch --gpus=8 on alpha is accepted across 2 clusters (got '$home': $(head -c 300 "$1/sbatch.err"))" \
        grep -q "across 2 clusters" "$1/sbatch.err"
    # The agent hands sbatch's held job to the broker within a cycle or two.
    handed() { [ "$(xjob_field "$xid" "len(b['parts'])")" = 2 ]; }
    within 30 handed
    R=$(xjob_field "$xid" "[p['cluster'] for p in b['parts'] if p['cluster'] != 'alpha'][0]")
    O=$([ "$R" = beta ] && echo gamma || echo beta)
}
heard() { grep -c "the broker answers again: cross-site" "$SF_TMP/$R/agent.log"; }
submit "$SF_TMP/job1"
home1=$home
r_reserved() { [ -n "$(part_of "$xid" "$R" reservation)" ]; }
expect "$R reserves its part" within 60 r_reserved
heard_before=$(heard)
t_cut=$(now)
netns_cut "$R"
echo "# cut $R while the job is $(xjob_field "$xid" "b['state']") (its part's reservation: '$(part_of "$xid" "$R" reservation)'; common start in $(xjob_field "$xid" "b['start_at']" | python3 -c "import sys; print(round(float(sys.stdin.read()) - $t_cut))") s)"
# Through the cut and past the fence: no part runs, on any cluster; R's reservation goes.
ran=0 res_gone=
until python3 -c "import sys; sys.exit(0 if $(now) - $t_cut > $FENCE + 10 else 1)"; do
    for c in alpha "$R"; do [ "$(running_parts "$c")" = 0 ] || ran=$((ran + 1)); done
    if [ -z "$res_gone" ] && [ "$(on "$R" scontrol -o show reservation 2>/dev/null | grep -c spiderflow-)" = 0 ]; then res_gone=$(secs "$t_cut" "$(now)"); fi
    sleep 0.5
done
echo "# cut during co-allocation: $R's reservation removed by its agent ${res_gone:-never} s after the cut (part_fence_after $FENCE s); the job: $(xjob_field "$xid" "b['state'], b['reason']")"
expect "while $R is cut off during co-allocation no part runs anywhere ($ran polls saw one)" test "$ran" = 0
expect "... the job failed once, naming $R's silence" test "$(xjob_field "$xid" "b['state'], b['reason']")" = "failed $R not heard from for over $SILENT s"
expect "... and $R's agent removed its reservation within part_fence_after and a few (${res_gone:-never} s)" test -n "$res_gone"
alpha_res_gone() { [ "$(on alpha scontrol -o show reservation 2>/dev/null | grep -c spiderflow-)" = 0 ]; }
expect "... alpha's is gone too" within 20 alpha_res_gone
netns_heal "$R"
heard_again() { [ "$(heard)" -gt "$1" ]; }
expect "the link back, $R's agent hears the broker again" within 60 heard_again "$heard_before"
sleep 3   # R's first round of orders after the cut has been carried out
expect "... nothing changed: the job failed, never ran (state, runs: $(xjob_field "$xid" "b['state'], len(b['runs'])"))" \
    test "$(xjob_field "$xid" "b['state'], len(b['runs'])")" = "failed 0"
expect "... no Slurm job of it on $R, and alpha's home job never ran" \
    test "$(part_jobs_of "$xid" "$R") $(on alpha scontrol -o show job "$home" | grep -o 'RunTime=[^ ]*')" = "0 RunTime=00:00:00"
expect "... no reservation left on any cluster" within 30 no_reservation_left

# --- 2. cut while running ----------------------------------------------------------------------
submit "$SF_TMP/job2"
took=$(wait_for 120 xjob_state_is "$xid" running)
expect "a second job runs on alpha and $R (took ${took:-more than 120} s)" test -n "$took"
r_job=$(part_of "$xid" "$R" job_id)
heard_before=$(heard)
t_cut=$(now)
netns_cut "$R"
a_end= r_end= again= beside=0
until python3 -c "import sys; sys.exit(0 if $(now) - $t_cut > $SILENT + 60 else 1)"; do
    t=$(secs "$t_cut" "$(now)")
    [ -z "$a_end" ] && [ -z "$(on alpha squeue -h -j "$home" -t R -o %i)" ] && a_end=$t
    [ -z "$r_end" ] && [ -z "$(on "$R" squeue -h -j "$r_job" -t R -o %i)" ] && r_end=$t
    if [ -z "$again" ] && [ "$(xjob_field "$xid" "b['run'], b['state']")" = "2 running" ]; then again=$t; fi
    # Run 2 running while run 1's part on R still runs: two worlds of one job.
    [ -n "$again" ] && [ -z "$r_end" ] && beside=$((beside + 1))
    [ -n "$a_end" ] && [ -n "$r_end" ] && [ -n "$again" ] && break
    sleep 0.5
done
alone_s=$(python3 -c "print(round(abs(${a_end:-999} - ${r_end:-999}), 1) if '$a_end' and '$r_end' else 'unbounded')")
echo "# $R cut while running: alpha's part ended ${a_end:-never} s after the cut (broker: cluster_silent_after $SILENT s), $R's part ${r_end:-never} s (its agent: part_fence_after $FENCE s); a part ran alone $alone_s s; running again (run 2) ${again:-never} s after the cut"
expect "both parts end within ${SILENT} s of the cut and a few (alpha ${a_end:-never}, $R ${r_end:-never})" \
    test -n "$a_end" -a -n "$r_end"
expect "... neither runs alone for more than 10 s ($alone_s s)" python3 -c "import sys; sys.exit(0 if '$alone_s' != 'unbounded' and $alone_s <= 10 else 1)"
expect "... $R's part never ran beside run 2 ($beside polls saw both)" test "$beside" = 0
expect "the job runs again, planned anew (${again:-never} s after the cut)" test -n "$again"
clusters2=$(xjob_field "$xid" "','.join(sorted(p['cluster'] for p in b['parts']))")
expect "... on alpha and $O, without $R (got $clusters2)" test "$clusters2" = "alpha,$O"
netns_heal "$R"
expect "the link back, $R's agent hears the broker again" within 60 heard_again "$heard_before"
sleep 3   # R's late word of its part (ISOLATED) has been taken: it must change nothing
expect "... and the job is still in run 2, running: requeued once, not twice (run, state, runs: $(xjob_field "$xid" "b['run'], b['state'], len(b['runs'])"))" \
    test "$(xjob_field "$xid" "b['run'], b['state'], len(b['runs'])")" = "2 running 2"
expect "... run 1's reason names $R's silence or its isolation" bash -c "'$SF_BUILDDIR/spiderflow' jobs --broker '$URL' --token-file '$SF_TMP/reader.token' '$xid' | grep -q '$R not heard from\|ISOLATED'"
expect "... Slurm jobs of the job, both runs: 2 on alpha (the home job, run 2's part), 1 on $O, 1 on $R (run 1's) (got $(part_jobs_of "$xid" alpha) $(part_jobs_of "$xid" "$O") $(part_jobs_of "$xid" "$R"))" \
    test "$(part_jobs_of "$xid" alpha) $(part_jobs_of "$xid" "$O") $(part_jobs_of "$xid" "$R")" = "2 1 1"
expect "... nothing runs on $R" test "$(running_parts "$R")" = 0
on alpha scancel "$(part_of "$xid" alpha job_id)"
expect "the job ended by its user's scancel" within 60 xjob_state_is "$xid" failed
expect "no reservation is left on any cluster" within 30 no_reservation_left
parts_gone() { [ "$(running_parts "$1")" = 0 ]; }
for c in alpha beta gamma; do expect "no part runs on $c" within 30 parts_gone "$c"; done
expect "no agent crashed" bash -c "! grep -qi 'terminate\|abort\|segmentation' $SF_TMP/*/agent.log"
echo "# wall time $(($(date +%s) - t_test)) s"
if [ "$FAILS" -ne 0 ]; then
    "$SF_BUILDDIR/spiderflow" jobs --broker "$URL" --token-file "$SF_TMP/reader.token" "$xid" 2>&1 | tail -30
    for c in alpha beta gamma; do echo "--- $c agent log"; tail -15 "$SF_TMP/$c/agent.log"; done
    echo "--- broker log"; tail -20 "$SF_TMP/brokerd.log"
fi
rm -f ~/spiderflow-alpha_"$home1"-a*-p*.out ~/spiderflow-alpha_"$home"-a*-p*.out 2>/dev/null
echo "$FAILS failure(s)"
[ "$FAILS" -eq 0 ]
