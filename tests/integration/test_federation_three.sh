#!/bin/bash
# Integration: three real Slurm clusters on localhost (2 nodes of 8 fake GPUs each), the broker
# and an agent per cluster. A plain sbatch on alpha asks for 48 GPUs, which only all three hold:
# the broker is killed (-9) while the parts are being created and restarted, and the job still
# runs as one world of 48 ranks across the three clusters, and keeps running through a second
# kill -9 and restart; scancel of one part on gamma ends the parts on alpha and beta, and the
# home job's own output says why; a cluster whose agent falls silent past cluster_silent_after
# has the other parts ended, and its own part is ended when it is back. That second job starts its
# tasks with `spiderflow launch`, which starts each cluster's share of the plan.
. "$(dirname "$0")/federation.sh"
fed_init alpha:an1,an2 beta:bn1,bn2 gamma:gn1,gn2
echo "cluster_silent_after = 10" >>"$SF_TMP/brokerd.conf"
for c in alpha beta gamma; do echo "part_min_uid = 0" >>"$SF_TMP/$c/agent.conf"; done  # the test's user is root
fed_start
published() { [ "$(curl -sf -H 'Authorization: Bearer tok-tools' "$URL/v1/clusters" | python3 -c 'import json,sys; print(sum(1 for c in json.load(sys.stdin)["clusters"] if c["published"]))')" = 3 ]; }
expect "three agents publish their clusters" within 20 published
expect "alpha's job_submit sees the federation" within 10 grep -q '"epoch"' "$SF_TMP/alpha/federation-state.json"

X=$SF_TMP/x1
mkdir -p "$X"
write_rank_script "$X"
# sbatch_48 DIR: prints the home job's id
sbatch_48() { on alpha sbatch --parsable --llm-model=llama3-8b --llm-global-batch=64 --gpus=48 -o "$1/home.out" "$1/train.sh" 2>"$1/sbatch.err"; }

# --- 1. one job over three clusters, the broker killed while the parts are being created -------
home=$(sbatch_48 "$X")
expect "sbatch --gpus=48 on alpha is accepted (job '$home': $(head -c 300 "$X/sbatch.err"))" test -n "$home"
expect "... sbatch names three parts" grep -q "across 3 clusters" "$X/sbatch.err"
# Killed at the first sight of the job: seeking its start, reserving, or submitting the parts.
creating() { case $(xjob_field "alpha:$home" "b['state']") in negotiating | reserving | starting) return 0 ;; esac; return 1; }
expect "the agent hands the job to the broker, which seeks a common start ($(xjob_field "alpha:$home" "b['state']" 2>/dev/null))" within 30 creating
kill -9 "$BROKER_PID"; wait "$BROKER_PID" 2>/dev/null
sleep 2
start_broker || exit 1
took=$(wait_for 90 xjob_state_is "alpha:$home" running)
expect "after kill -9 and a restart of the broker every part runs (took ${took:-more than 90} s)" test -n "$took"
expect_one_world "alpha:$home" "$X" 48
expect "... every cluster's batch script knows its part" test "$(cat "$X"/batch-*.txt | awk '{print $4}' | sort -u | tr '\n' ' ')" = "48 "
echo "# three clusters: skew between the parts' first ranks $(start_skew "$X") s"
declare -A PART
for c in alpha beta gamma; do PART[$c]=$(xjob_field "alpha:$home" "[p['job_id'] for p in b['parts'] if p['cluster'] == '$c'][0]"); done
all_running() {
    local c
    for c in alpha beta gamma; do [ "$(on "$c" squeue -h -j "${PART[$c]}" -o %T 2>/dev/null)" = RUNNING ] || return 1; done
}
kill -9 "$BROKER_PID"; wait "$BROKER_PID" 2>/dev/null
sleep 4
expect "with the broker gone (kill -9) every part keeps running" all_running
start_broker || exit 1
sleep 3
expect "... and after its restart the job is still one running world" xjob_state_is "alpha:$home" running
expect "... every part still running" all_running

# --- 2. one part cancelled: every part ends, and the home job's output says why ---------------
gamma_part=$(xjob_field "alpha:$home" "[p['job_id'] for p in b['parts'] if p['cluster'] == 'gamma'][0]")
beta_part=$(xjob_field "alpha:$home" "[p['job_id'] for p in b['parts'] if p['cluster'] == 'beta'][0]")
on gamma scancel "$gamma_part"
expect "gamma's part cancelled: the job fails, naming it" within 30 bash -c \
    "curl -s -H 'Authorization: Bearer tok-tools' '$URL/v1/xjobs/alpha:$home' | grep -q 'on gamma ended: CANCELLED'"
gone() { [ -z "$(on "$1" squeue -h -j "$2" -t R,PD,CG -o %i 2>/dev/null)" ]; }
expect "... beta's part ends" within 30 gone beta "$beta_part"
expect "... alpha's home job ends" within 30 gone alpha "$home"
expect "... and its output says why" within 10 grep -q "spiderflow: cross-site job alpha:$home ends: part [0-9] on gamma ended: CANCELLED" "$X/home.out"
expect "... and no reservation is left on any cluster" within 20 no_reservation_left

# --- 3. a cluster whose agent falls silent has the other parts ended --------------------------
Y=$SF_TMP/x2
mkdir -p "$Y"
# This one starts its tasks with `spiderflow launch`: each part starts its own cluster's share,
# with the federation's topology from the site config the SPANK plugin names (SPIDERFLOW_CONF).
write_rank_script "$Y" "$SF_BUILDDIR/spiderflow launch --"
home2=$(sbatch_48 "$Y")
expect "a second job over three clusters runs" within 90 xjob_state_is "alpha:$home2" running
expect_one_world "alpha:$home2" "$Y" 48
# The launchers meet first (spiderflow launch's start barrier): every part's ranks start together.
expect "... the home part's launcher waited for the other parts before starting its ranks" \
    grep -q "spiderflow: every part of cross-site job alpha:$home2 is running" "$Y/home.out"
echo "# three clusters with spiderflow launch's start barrier: skew between the parts' first ranks $(start_skew "$Y") s"
beta2=$(xjob_field "alpha:$home2" "[p['job_id'] for p in b['parts'] if p['cluster'] == 'beta'][0]")
gamma2=$(xjob_field "alpha:$home2" "[p['job_id'] for p in b['parts'] if p['cluster'] == 'gamma'][0]")
kill -STOP "$AGENT_gamma"
expect "gamma's agent silent past cluster_silent_after: the job fails, saying so" within 30 xjob_state_is "alpha:$home2" failed
expect "... the parts on alpha and beta end" within 30 bash -c "[ -z \"\$(SLURM_CONF=$SF_TMP/beta/slurm.conf squeue -h -j $beta2 -t R,PD,CG -o %i)\" ] && [ -z \"\$(SLURM_CONF=$SF_TMP/alpha/slurm.conf squeue -h -j $home2 -t R,PD,CG -o %i)\" ]"
expect "... gamma's part still runs while its agent is away" test -n "$(on gamma squeue -h -j "$gamma2" -t R -o %i)"
kill -CONT "$AGENT_gamma"
expect "... and is ended once the agent is back" within 30 gone gamma "$gamma2"
expect "no reservation is left on any cluster" within 20 no_reservation_left

expect "no agent crashed" bash -c "! grep -qi 'terminate\|abort\|segmentation' $SF_TMP/*/agent.log"
expect "no agent failed to load a Slurm plugin of PluginDir" bash -c "! grep -q 'plugin_load_from_file\\|Couldn.t load specified plugin' $SF_TMP/*/agent.log"
if [ "$FAILS" -ne 0 ]; then
    for c in alpha beta gamma; do echo "--- $c agent log"; tail -15 "$SF_TMP/$c/agent.log"; done
    for f in "$X/home.out" "$Y/home.out" /root/spiderflow-alpha_*.out; do echo "--- $f"; tail -15 "$f"; done
    echo "--- broker log"; tail -20 "$SF_TMP/brokerd.log"
fi
rm -f /root/spiderflow-alpha_*.out 2>/dev/null
echo "$FAILS failure(s)"
[ "$FAILS" -eq 0 ]
