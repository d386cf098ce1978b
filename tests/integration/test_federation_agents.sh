#!/bin/bash
# Integration: a federation of two real Slurm clusters on localhost (alpha: 2 nodes, beta: 3
# nodes, 8 fake GPUs each; slurmctld + slurmd each, one munged), spiderflow-brokerd and one
# spiderflow-agent per cluster, all started under a temporary directory and stopped by PID.
# A job started on beta shows up in the broker within seconds and `spiderflow plan --broker`
# avoids its nodes; a drained node leaves the free count; alpha's job_submit tells a user who
# asks for more GPUs than alpha has what the federation has free; a restarted agent resyncs;
# measured links reach the broker; without the broker the agent's cache holds its cluster alone;
# a cross-site job runs as one world on both clusters, starts together, and ends together; two
# cross-site jobs that each need most of both clusters both finish.
. "$(dirname "$0")/federation.sh"
fed_init alpha:an1,an2 beta:bn1,bn2,bn3
A=$SF_TMP/alpha
B=$SF_TMP/beta
# Sections 3 and 7 check the refusal of a cluster that does not plan across sites; section 10
# turns it on.
echo "cross_site = no" >>"$A/spiderflow.conf"
echo "links_file = $A/links.jsonl" >>"$A/agent.conf"
# How other sites reach a node, for MASTER_ADDR: alpha's NodeAddr (the default), beta's by name.
echo "wan_address = %n.beta.test" >>"$B/agent.conf"
fed() { curl -sf -H "Authorization: Bearer tok-tools" "$URL/v1/federation"; }
has_job() { fed | python3 -c "import json,sys; j=json.load(sys.stdin)['state']; sys.exit(0 if any(a['job']=='$1' for a in j.get('jobs',[])) else 1)"; }
no_job() { ! has_job "$1"; }
node_state_is() { fed | python3 -c "import json,sys; j=json.load(sys.stdin)['state']; sys.exit(0 if any(n['cluster']=='$1' and n['node']=='$2' and n['state']=='$3' for n in j.get('nodes',[])) else 1)"; }
free_gpus() { clusters | python3 -c "import json,sys; print(sum(c['free_gpus'] for c in json.load(sys.stdin)['clusters'] if c['name']=='$1'))"; }

fed_start

# --- 1. both clusters publish ------------------------------------------------------------------
clusters() { curl -sf -H "Authorization: Bearer tok-tools" "$URL/v1/clusters"; }
published() { [ "$(clusters | python3 -c 'import json,sys; print(sum(1 for c in json.load(sys.stdin)["clusters"] if c["published"]))')" = 2 ]; }
expect "both agents publish their cluster" within 15 published
expect "the agent's cache for job_submit holds the federation (beta's nodes known on alpha)" \
    within 10 grep -q '"epoch"' "$A/federation-state.json"

# --- 2. a job started on beta reaches the broker within seconds --------------------------------
jid=$(SLURM_CONF=$B/slurm.conf sbatch --parsable -N2 --gpus-per-node=8 -o /dev/null --wrap 'sleep 300' 2>"$SF_TMP/sbatch.err")
if [ -z "$jid" ]; then not_ok "a job on beta is accepted"; cat "$SF_TMP/sbatch.err"; fi
running() { [ "$(SLURM_CONF=$B/slurm.conf squeue -h -j "$jid" -o %T)" = RUNNING ]; }
within 20 running
took=$(wait_for 10 has_job "beta:$jid")
expect "beta's running job $jid is in the broker's federation within 10 s (took ${took:-more than 10} s)" test -n "$took"
expect "beta has 8 GPUs free once the job holds 16" test "$(free_gpus beta)" = 8
busy=$(SLURM_CONF=$B/slurm.conf squeue -h -j "$jid" -o %N)
"$SF_BUILDDIR/spiderflow" plan --broker "$URL" --token-file "$SF_TMP/reader.token" --model llama3-8b --global-batch 64 \
    --gpus 8 --allow beta --format json >"$SF_TMP/plan.json" 2>"$SF_TMP/plan.err"
plan_nodes=$(python3 -c 'import json,sys; print(" ".join(sorted({r["node"] for r in json.load(open(sys.argv[1]))["ranks"]})))' "$SF_TMP/plan.json" 2>/dev/null)
expect "plan --broker on beta uses the free node (bn3), not the busy ones ($busy): got '$plan_nodes'" test "$plan_nodes" = "bn3"

# --- 3. alpha's job_submit knows what the federation has free ----------------------------------
# alpha's job_submit plans on its agent's cache, written each cycle: on a loaded machine the first
# sbatch can come before the cache holds the federation. Every try is refused, so trying again
# until the cache has it creates nothing.
big_refused_naming_federation() {
    SLURM_CONF=$A/slurm.conf sbatch --llm-model=llama3-8b --llm-global-batch=64 --gpus=24 --wrap true >"$SF_TMP/big.out" 2>&1
    grep -q "cluster 'alpha' has 16 (2 nodes); the federation has 24 free, but this cluster does not plan across sites" "$SF_TMP/big.out"
}
expect "24 GPUs on alpha: refused naming alpha's 16 and the federation's 24 free" \
    within 10 big_refused_naming_federation

# --- 4. a drained node leaves the free count ---------------------------------------------------
SLURM_CONF=$B/slurm.conf scontrol update nodename=bn3 state=drain reason="bad DIMM"
expect "a drained node (beta:bn3) is drained in the broker" within 10 node_state_is beta bn3 drained
expect "beta has no GPU free with bn3 drained and 2 nodes busy" test "$(free_gpus beta)" = 0
# alpha's agent keeps its cache by delta reads (GET /v1/federation/deltas) since its first whole
# read: at the same epoch its cache must be the broker's whole view, job for job, node for node.
cache_is_view() {
    curl -sf -H "Authorization: Bearer tok-tools" "$URL/v1/federation" >"$SF_TMP/view.json" || return 1
    python3 - "$SF_TMP/view.json" "$A/federation-state.json" <<'PY'
import json, sys
view = json.load(open(sys.argv[1]))["state"]
cache = json.load(open(sys.argv[2]))
sys.exit(0 if view == cache else 1)
PY
}
expect "alpha's cache, kept by delta reads, equals the broker's whole view at the same epoch" within 20 cache_is_view
deltas_read() { curl -s -H "Authorization: Bearer tok-tools" "$URL/metrics" | grep -q 'route="/v1/federation/deltas",status="200"'; }
expect "... and the agents read deltas, not whole views, once they hold one" deltas_read
SLURM_CONF=$B/slurm.conf scontrol update nodename=bn3 state=resume

# --- 5. an agent restarted after changes it missed resyncs -------------------------------------
stop_pid "$AGENT_beta"
SLURM_CONF=$B/slurm.conf scancel "$jid"
gone() { [ -z "$(SLURM_CONF=$B/slurm.conf squeue -h -j "$jid" -t R,CG -o %i 2>/dev/null)" ]; }
within 20 gone
expect "while beta's agent is stopped the broker still has the job" has_job "beta:$jid"
start_agent beta
expect "the restarted agent's snapshot removes the cancelled job" within 10 no_job "beta:$jid"
node_state_is_up() { ! node_state_is beta bn3 drained; }
expect "... and bn3 is up again" within 10 node_state_is_up
kill -9 "$AGENT_beta"; wait "$AGENT_beta" 2>/dev/null
jid2=$(SLURM_CONF=$B/slurm.conf sbatch --parsable -N1 --gpus-per-node=8 -o /dev/null --wrap 'sleep 300')
start_agent beta
expect "after kill -9 the restarted agent publishes the job started meanwhile ($jid2)" within 15 has_job "beta:$jid2"

# --- 6. measured links --------------------------------------------------------------------------
now=$(date +%s)
echo "{\"delta\":\"link_measured\",\"a\":\"alpha\",\"b\":\"beta\",\"gbps\":7.5,\"latency_ms\":22,\"timestamp\":$now,\"source\":\"iperf3 probe\"}" >"$A/links.jsonl"
link_measured() { "$SF_BUILDDIR/spiderflow" federation --broker "$URL" --token-file "$SF_TMP/reader.token" --format json |
    python3 -c "import json,sys; sys.exit(0 if any(l['measured'] and l['source']=='iperf3 probe' for l in json.load(sys.stdin)['links']) else 1)"; }
expect "alpha's measured link figure reaches the broker" within 10 link_measured

# --- 7. without the broker the cache holds this cluster alone ----------------------------------
stop_pid "$BROKER_PID"; BROKER_PID=
alone() { grep -q 'no word from the federation broker' "$A/federation-state.json"; }
expect "broker stopped: alpha's cache marks beta's nodes unknown after broker_stale_after" within 15 alone
expect "... and the agent says so in its log" grep -q "job_submit now plans on cluster 'alpha' alone" "$A/agent.log"
SLURM_CONF=$A/slurm.conf sbatch --llm-model=llama3-8b --llm-global-batch=64 --gpus=24 --wrap true >"$SF_TMP/big2.out" 2>&1
expect "job_submit then counts no GPU of beta as free" grep -q "the federation has 16 free" "$SF_TMP/big2.out"
start_broker || exit 1
back() { ! grep -q 'no word from the federation broker' "$A/federation-state.json"; }
expect "broker back: the cache holds the federation again" within 15 back

# --- 8. one job across both clusters: a common start, one world, all or nothing ---------------
submit_xjob() {  # ID USER: alpha 2 nodes (ranks 0-15), beta 1 node (ranks 16-23)
    python3 - "$1" "$2" "$SF_TMP/xjob-out" >"$SF_TMP/xjob.json" <<'PY'
import json, sys
script = ("#!/bin/bash\n"
          "echo \"$SLURM_CLUSTER_NAME $SPIDERFLOW_XJOB_PART $SPIDERFLOW_RANK_BASE $SPIDERFLOW_WORLD_SIZE $MASTER_ADDR:$MASTER_PORT $(date +%s.%N)\""
          " > " + sys.argv[3] + "/part-$SPIDERFLOW_XJOB_PART.txt\nsleep 300\n")
print(json.dumps({"id": sys.argv[1], "user": sys.argv[2], "time_limit_s": 600, "script": script,
                  "parts": [{"cluster": "alpha", "nodes": 2, "gpus_per_node": 8, "ranks": 16},
                            {"cluster": "beta", "nodes": 1, "gpus_per_node": 8, "ranks": 8}]}))
PY
    curl -s -o /dev/null -w '%{http_code}' -X POST -H "Authorization: Bearer tok-alpha" --data-binary "@$SF_TMP/xjob.json" "$URL/v1/xjobs"
}
# The parts run as root here (the test has no other user), which agents refuse by default:
expect "an agent refuses root's parts by default" test "$(submit_xjob alpha:899 root)" = 201
expect "... the job fails naming part_min_uid" within 20 bash -c \
    "curl -s -H 'Authorization: Bearer tok-tools' '$URL/v1/xjobs/alpha:899' | grep -q 'below part_min_uid 1000'"
for c in alpha beta; do
    echo "part_min_uid = 0" >>"$SF_TMP/$c/agent.conf"
    restart_agent "$c"
done
mkdir -p "$SF_TMP/xjob-out"
submitted_at=$(date +%s.%N)
expect "alpha submits a cross-site job to the broker" test "$(submit_xjob alpha:900 root)" = 201
took=$(wait_for 60 xjob_state_is alpha:900 running)
expect "both parts run, each in its reservation, within 60 s (took ${took:-more than 60} s)" test -n "$took"
both_wrote() { [ -s "$SF_TMP/xjob-out/part-0.txt" ] && [ -s "$SF_TMP/xjob-out/part-1.txt" ]; }
within 20 both_wrote
read -r c0 p0 base0 world0 master0 t0 <"$SF_TMP/xjob-out/part-0.txt"
read -r c1 p1 base1 world1 master1 t1 <"$SF_TMP/xjob-out/part-1.txt"
expect "part 0 runs on alpha as ranks 0.. of 24, master an1 at its NodeAddr (got: $c0 $base0 $world0 $master0)" test "$c0 $base0 $world0 ${master0%:*}" = "alpha 0 24 127.0.0.1"
expect "part 1 runs on beta as ranks 16.. of 24 (got: $c1 $base1 $world1)" test "$c1 $base1 $world1" = "beta 16 24"
expect "both parts meet at one MASTER_ADDR:MASTER_PORT ($master0, $master1)" test "$master0" = "$master1" -a "${master0#*:}" -gt 0
skew=$(python3 -c "print(f'{abs($t0 - $t1):.2f}')")
echo "# cross-site start: skew between the parts' first lines $skew s; submission to both running ${took:-?} s"
expect "the parts start within 2 s of each other (skew $skew s)" python3 -c "import sys; sys.exit(0 if $skew < 2 else 1)"
res_on() { SLURM_CONF=$SF_TMP/$1/slurm.conf scontrol -o show reservation 2>/dev/null | grep -c "spiderflow-alpha_900"; }
expect "each cluster holds the part's reservation" test "$(res_on alpha) $(res_on beta)" = "1 1"

part1=$(xjob_field alpha:900 "b['parts'][1]['job_id']")
part0=$(xjob_field alpha:900 "b['parts'][0]['job_id']")
SLURM_CONF=$B/slurm.conf scancel "$part1"
expect "beta's part cancelled: the job fails" within 20 xjob_state_is alpha:900 failed
expect "... saying which part ended and why" bash -c "xjob() { curl -s -H 'Authorization: Bearer tok-tools' '$URL/v1/xjobs/alpha:900'; }; xjob | grep -q 'part 1 on beta ended: CANCELLED'"
alpha_part_gone() { [ -z "$(SLURM_CONF=$A/slurm.conf squeue -h -j "$part0" -t R,PD,CG -o %i 2>/dev/null)" ]; }
expect "... and alpha's part ($part0) is ended by its agent" within 20 alpha_part_gone
no_reservations() { [ "$(res_on alpha) $(res_on beta)" = "0 0" ]; }
expect "... and both reservations are gone" within 20 no_reservations
rm -f /root/spiderflow-alpha_900-*.out /root/slurm-"$part0".out 2>/dev/null

expect "a user beta does not know: the job fails at once" test "$(submit_xjob alpha:901 sf-nobody-$$)" = 201
expect "... with beta's reason" within 20 bash -c "curl -s -H 'Authorization: Bearer tok-tools' '$URL/v1/xjobs/alpha:901' | grep -q \"no user 'sf-nobody-$$' on cluster\""

# --- 9. two cross-site jobs that each need most of both clusters: both finish -----------------
submit_short() {  # ID: alpha 2 nodes + beta 2 nodes, 3 s of work, a 1 minute limit
    python3 -c "import json,sys; print(json.dumps({'id': sys.argv[1], 'user': 'root', 'time_limit_s': 60,
        'script': '#!/bin/bash\\nsleep 3\\n',
        'parts': [{'cluster': 'alpha', 'nodes': 2, 'gpus_per_node': 8, 'ranks': 16},
                  {'cluster': 'beta', 'nodes': 2, 'gpus_per_node': 8, 'ranks': 16}]}))" "$1" >"$SF_TMP/short.json"
    curl -s -o /dev/null -w '%{http_code}' -X POST -H "Authorization: Bearer tok-alpha" --data-binary "@$SF_TMP/short.json" "$URL/v1/xjobs"
}
SLURM_CONF=$B/slurm.conf scancel "$jid2" 2>/dev/null   # beta's nodes all free: each job needs 2 of 3
expect "two competing cross-site jobs are accepted" test "$(submit_short alpha:910) $(submit_short alpha:911)" = "201 201"
both_completed() { xjob_state_is alpha:910 completed && xjob_state_is alpha:911 completed; }
took=$(wait_for 180 both_completed)
expect "both finish, one after the other, neither holding a cluster while waiting (took ${took:-more than 180} s)" test -n "$took"
expect "... the second started after the first" python3 -c "import sys; sys.exit(0 if $(xjob_field alpha:911 "b['start_at']") >= $(xjob_field alpha:910 "b['start_at']") else 1)"
expect "... and no reservation is left behind" within 20 no_reservation_left

# --- 10. plain sbatch: a job larger than its cluster runs across both as one world --------------
sed -i 's/^cross_site = no$/cross_site = yes/' "$A/spiderflow.conf"
touch -d '+1 second' "$A/spiderflow.conf"   # a new mtime even within the second of the last write
X=$SF_TMP/sbatch-x
mkdir -p "$X"
write_rank_script "$X"
SLURM_CONF=$A/slurm.conf sbatch --parsable --llm-model=llama3-8b --llm-global-batch=64 --gpus=24 -o /dev/null \
    "$X/train.sh" >"$X/beta-only.out" 2>&1
expect "24 GPUs fit beta alone, where they run best: alpha's sbatch says so" grep -q "runs best on cluster 'beta' alone (24 GPUs)" "$X/beta-only.out"
SLURM_CONF=$A/slurm.conf sbatch --parsable --llm-model=llama3-8b --llm-global-batch=64 --gpus=32 -o "$X/home.out" \
    "$X/train.sh" >"$X/sbatch.out" 2>"$X/sbatch.err"
home=$(tr -d '[:space:]' <"$X/sbatch.out")
expect "sbatch --gpus=32 on alpha (16 GPUs) is accepted as a cross-site job (got '$home': $(head -c 300 "$X/sbatch.err"))" test -n "$home"
expect "... sbatch names every part's cluster and GPUs" grep -q "across 2 clusters: .*alpha .* GPUs, ranks .* (this job)" "$X/sbatch.err"
expect "... and where the other parts' output goes, with no literal JOBID" bash -c \
    "grep -q 'output goes to your home directory on their clusters (beta part [0-9]), as ~/spiderflow-alpha_<job id>-a<attempt>-p<part>.out' '$X/sbatch.err' && ! grep -q JOBID '$X/sbatch.err'"
held_reason=$(SLURM_CONF=$A/slurm.conf squeue -h -j "$home" -o %r)
expect "... the home job waits, held (reason: $held_reason)" test "${held_reason#JobHeld}" != "$held_reason"
took=$(wait_for 90 xjob_state_is "alpha:$home" running)
expect "the agent hands it to the broker and both parts run within 90 s of sbatch (took ${took:-more than 90} s)" test -n "$took"
expect_one_world "alpha:$home" "$X" 32
read -r hc hp hb hw hm <"$X/batch-alpha.txt"
read -r bc bp bb bw bm <"$X/batch-beta.txt"
want=$(xjob_field "alpha:$home" "' '.join('%d %d %d' % (k, p['first_rank'], b['world_size']) for k, p in enumerate(b['parts']) if p['cluster'] == 'alpha') + ' / ' + ' '.join('%d %d %d' % (k, p['first_rank'], b['world_size']) for k, p in enumerate(b['parts']) if p['cluster'] == 'beta')")
expect "the batch scripts see their part's place (got: $hp $hb $hw / $bp $bb $bw, want $want)" test "$hp $hb $hw / $bp $bb $bw" = "$want"
first_addr=$(xjob_field "alpha:$home" "b['parts'][0]['address']")
expect "... and the same master in both ($hm, $bm): part 0's first node at the address its agent gives other sites ($first_addr)" \
    test "$hm" = "$bm" -a "${hm%%:*}" = "$first_addr" -a "${first_addr#*.}" != "$first_addr"
want=$(xjob_field "alpha:$home" "' '.join(b['step_env'][k] for k in ('SPIDERFLOW_TP', 'SPIDERFLOW_PP', 'SPIDERFLOW_DP', 'SPIDERFLOW_CLUSTERS')) + ' 1'")
expect "the home part's batch script sees the plan's variables on the first run ($(cat "$X/plan-alpha.txt"), want $want)" \
    test "$(cat "$X/plan-alpha.txt")" = "$want"
expect "... as the other part's does ($(cat "$X/plan-beta.txt"))" test "$(cat "$X/plan-beta.txt")" = "$want"
skew=$(start_skew "$X")
echo "# sbatch cross-site: sbatch to both parts running ${took:-?} s; skew between the parts' first ranks $skew s"
beta_part=$(xjob_field "alpha:$home" "[p['job_id'] for p in b['parts'] if p['cluster'] == 'beta'][0]")
beta_k=$(xjob_field "alpha:$home" "[k for k, p in enumerate(b['parts']) if p['cluster'] == 'beta'][0]")
expect "beta's part writes its output under its name in the user's home (~/spiderflow-alpha_$home-a1-p$beta_k.out)" \
    test -f "/root/spiderflow-alpha_$home-a1-p$beta_k.out"
"$SF_BUILDDIR/spiderflow" jobs --broker "$URL" --token-file "$SF_TMP/reader.token" "alpha:$home" >"$X/jobs.txt" 2>&1
expect "... and spiderflow jobs names that file" grep -q "output on beta: ~/spiderflow-alpha_$home-a1-p$beta_k.out" "$X/jobs.txt"
SLURM_CONF=$A/slurm.conf scancel "$home"
expect "scancel of the home job ends the cross-site job" within 30 xjob_state_is "alpha:$home" failed
beta_gone() { [ -z "$(SLURM_CONF=$B/slurm.conf squeue -h -j "$beta_part" -t R,PD,CG -o %i 2>/dev/null)" ]; }
expect "... and beta's part ($beta_part) with it" within 30 beta_gone
expect "... and no reservation is left behind" within 20 no_reservation_left
rm -f /root/spiderflow-alpha_*.out 2>/dev/null

# A site that does not take the user's parts: the held job is cancelled, and says why. The running
# agent reads agent.conf again on SIGHUP (as slurmctld on reconfigure), naming what changed; a
# typo there first is refused and the running configuration kept.
echo "part_usres = sf-somebody-else" >>"$B/agent.conf"
kill -HUP "$AGENT_beta"
hup_refused() { grep -q "SIGHUP: the configuration does not load, the running one stays: .*part_usres" "$B/agent.log"; }
expect "SIGHUP with a typo in agent.conf: the agent says so and keeps running" within 20 hup_refused
expect "... still running" kill -0 "$AGENT_beta"
sed -i 's/^part_usres = /part_users = /' "$B/agent.conf"
kill -HUP "$AGENT_beta"
hup_applied() { grep -q "SIGHUP: part_users: (any) -> sf-somebody-else" "$B/agent.log"; }
expect "SIGHUP: beta's agent reads agent.conf again and names the change" within 20 hup_applied
home=$(SLURM_CONF=$A/slurm.conf sbatch --parsable --llm-model=llama3-8b --llm-global-batch=64 --gpus=32 -o /dev/null "$X/train.sh" 2>/dev/null)
expect "beta refuses root's part: the cross-site job fails with beta's reason" within 30 bash -c \
    "curl -s -H 'Authorization: Bearer tok-tools' '$URL/v1/xjobs/alpha:$home' | grep -q 'part_users'"
refused_comment() { SLURM_CONF=$A/slurm.conf squeue -h -t all -j "$home" -o '%T %k' | grep -q "^CANCELLED spiderflow: cross-site job alpha:$home ends: .*part_users"; }
expect "... and the held home job is cancelled, its comment saying why ($(SLURM_CONF=$A/slurm.conf squeue -h -t all -j "$home" -o '%T %k'))" within 20 refused_comment
sed -i '/^part_users = sf-somebody-else$/d' "$B/agent.conf"
restart_agent beta

# A typo in beta's spiderflow.conf turns SpiderFlow off there (its step side would start a part's
# tasks without ranks): beta takes no part, and a job planned before alpha heard of it fails at
# once with beta's reason. (Once beta's agent has offered its nodes as drained, alpha plans no
# part there at all: test_torch_world.sh.) alpha's agent is paused while the typo goes in and the
# job is submitted, so alpha's job_submit still plans on beta; the agent reads the file when it
# starts: the typo comes once the restarted one has published.
restarted_and_published() { awk '/publishing to/ {up = 0} /published a full snapshot/ {up = 1} END {exit !up}' "$B/agent.log"; }
within 20 restarted_and_published
cp "$B/spiderflow.conf" "$B/spiderflow.conf.good"
kill -STOP "$AGENT_alpha"
echo "time_budgit = 5" >>"$B/spiderflow.conf"
home=$(SLURM_CONF=$A/slurm.conf sbatch --parsable --llm-model=llama3-8b --llm-global-batch=64 --gpus=32 -o /dev/null "$X/train.sh" 2>/dev/null)
kill -CONT "$AGENT_alpha"
expect "beta's config broken: the cross-site job fails at once with beta's reason" within 30 bash -c \
    "curl -s -H 'Authorization: Bearer tok-tools' '$URL/v1/xjobs/alpha:$home' | grep -q 'SpiderFlow is off on beta (configuration error: .*time_budgit'"
off_comment() { SLURM_CONF=$A/slurm.conf squeue -h -t all -j "$home" -o '%T %k' | grep -q "^CANCELLED .*SpiderFlow is off on beta"; }
expect "... and the held home job is cancelled, saying why" within 20 off_comment
cp "$B/spiderflow.conf.good" "$B/spiderflow.conf"
beta_offered() { ! grep -q "SpiderFlow is off on beta" "$A/federation-state.json"; }
expect "... fixed, beta's nodes are offered to alpha again" within 30 beta_offered

# A user's `scontrol release` of the held home part (before the broker placed every part): the part
# must not run alone as a world with ranks missing.
Z=$SF_TMP/released
mkdir -p "$Z"
write_rank_script "$Z"
home=$(SLURM_CONF=$A/slurm.conf sbatch --parsable --llm-model=llama3-8b --llm-global-batch=64 --gpus=32 -o "$Z/home.out" "$Z/train.sh" 2>/dev/null)
SLURM_CONF=$A/slurm.conf scontrol release "$home" 2>/dev/null
job_state() { SLURM_CONF=$A/slurm.conf squeue -h -t all -j "$1" -o %T 2>/dev/null; }
released_failed() { [ "$(job_state "$home")" = FAILED ]; }
# Under a loaded make -j2 check, slurmctld may take a while to schedule the released job.
within 60 released_failed
expect "scontrol release of a held home part: the job fails at once ($(SLURM_CONF=$A/slurm.conf squeue -h -t all -j "$home" -o '%T %r' 2>/dev/null))" released_failed
expect "... its output says why ($(head -c 200 "$Z/home.out" 2>/dev/null))" grep -q "released before every part could start" "$Z/home.out"
expect "... and no rank ran" test -z "$(ls "$Z" | grep '^rank-')"
expect "... and the broker runs no part of it" bash -c "! curl -s -H 'Authorization: Bearer tok-tools' '$URL/v1/xjobs/alpha:$home' | grep -q '\"state\": *\"running\"'"

SLURM_CONF=$A/slurm.conf salloc --llm-model=llama3-8b --llm-global-batch=64 --gpus=32 true >"$X/salloc.out" 2>&1
expect "salloc of a cross-site job is refused: it runs as a batch job" grep -q "submit it with sbatch" "$X/salloc.out"

expect "no agent crashed" bash -c "! grep -qi 'terminate\|abort\|segmentation' '$A/agent.log' '$B/agent.log'"
expect "no agent failed to load a Slurm plugin of PluginDir" bash -c "! grep -q 'plugin_load_from_file\\|Couldn.t load specified plugin' '$A/agent.log' '$B/agent.log'"
if [ "$FAILS" -ne 0 ]; then
    echo "--- alpha agent log"; tail -20 "$A/agent.log"
    echo "--- beta agent log"; tail -20 "$B/agent.log"
    echo "--- broker log"; tail -20 "$SF_TMP/brokerd.log"
    echo "--- sbatch on alpha"; cat "$SF_TMP/big.out" "$SF_TMP/big2.out"
fi
echo "$FAILS failure(s)"
[ "$FAILS" -eq 0 ]
