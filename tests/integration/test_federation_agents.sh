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
. "$(dirname "$0")/slurm_cluster.sh"
sf_cluster_can_run || exit 77
for b in "$SF_BUILDDIR/spiderflow-brokerd" "$SF_BUILDDIR/spiderflow-agent"; do
    [ -x "$b" ] || { sf_log "skip: $b not built"; exit 77; }
done
command -v curl >/dev/null || { sf_log "skip: curl missing"; exit 77; }

. "$(dirname "$0")/checks.sh"

SF_TMP=$(mktemp -d /tmp/sf-fed-it.XXXXXX)
chmod 755 "$SF_TMP"
AGENT_PIDS=()
BROKER_PID=
stop_all() {
    local p
    for p in "${AGENT_PIDS[@]}" $BROKER_PID; do kill "$p" 2>/dev/null; done
    for p in "${AGENT_PIDS[@]}" $BROKER_PID; do wait "$p" 2>/dev/null; done
    sf_cluster_stop
}
trap stop_all EXIT

A=$SF_TMP/alpha
B=$SF_TMP/beta
ALPHA_NODES=(an1 an2)
BETA_NODES=(bn1 bn2 bn3)
# Ports apart from test_slurm_submit.sh's range, derived from the PID for parallel runs.
base=$((30000 + ($$ % 300) * 20))
sf_write_slurm_conf "$A" alpha "$base" "${ALPHA_NODES[@]}"
sf_write_slurm_conf "$B" beta "$((base + 10))" "${BETA_NODES[@]}"
echo "SwitchName=s1 Nodes=an[1-2]" >"$A/topology.conf"
echo "SwitchName=s1 Nodes=bn[1-3]" >"$B/topology.conf"

# The federation's topology: the same file on every cluster and the broker.
node_json() { echo "{\"name\": \"$1\", \"gpus\": 8, \"gpu_type\": \"H100-SXM\", \"nvlink_domain\": 8, \"nics\": [{\"name\": \"mlx5_0\", \"kind\": \"ib\", \"gbps\": 400}], \"switch\": \"s1\"}"; }
cat >"$SF_TMP/federation.json" <<JSON
{
  "spiderflow_topology_version": 1,
  "name": "two-sites",
  "clusters": [
    {"name": "alpha", "region": "here", "intra_gbps": 400, "intra_latency_ms": 0.005,
     "nodes": [$(node_json an1), $(node_json an2)], "switches": [{"name": "s1"}]},
    {"name": "beta", "region": "there", "intra_gbps": 400, "intra_latency_ms": 0.005,
     "nodes": [$(node_json bn1), $(node_json bn2), $(node_json bn3)], "switches": [{"name": "s1"}]}
  ],
  "links": [{"a": "alpha", "b": "beta", "gbps": 10, "latency_ms": 20}]
}
JSON

BPORT=$(free_port)
URL=http://127.0.0.1:$BPORT
cat >"$SF_TMP/brokerd.conf" <<CONF
listen = 127.0.0.1
port = $BPORT
db = $SF_TMP/broker.db
topology = $SF_TMP/federation.json
tokens = $SF_TMP/tokens
coalloc_lead = 4
CONF
{
    echo "cluster alpha $(echo tok-alpha | "$SF_BUILDDIR/spiderflow-brokerd" --hash-token)"
    echo "cluster beta $(echo tok-beta | "$SF_BUILDDIR/spiderflow-brokerd" --hash-token)"
    echo "reader tools $(echo tok-tools | "$SF_BUILDDIR/spiderflow-brokerd" --hash-token)"
} >"$SF_TMP/tokens"
echo tok-tools >"$SF_TMP/reader.token"
chmod 600 "$SF_TMP/tokens" "$SF_TMP/reader.token"

for c in alpha beta; do
    d=$SF_TMP/$c
    cat >"$d/spiderflow.conf" <<CONF
topology = $SF_TMP/federation.json
cluster = $c
site_state = $d/federation-state.json
time_budget = 5
CONF
    # Sections 3 and 7 check the refusal of a cluster that does not plan across sites; section
    # 10 turns it on.
    [ "$c" = alpha ] && echo "cross_site = no" >>"$d/spiderflow.conf"
    echo "tok-$c" >"$d/agent.token"
    chmod 600 "$d/agent.token"
    cat >"$d/agent.conf" <<CONF
broker = $URL
token_file = $d/agent.token
spiderflow_conf = $d/spiderflow.conf
interval = 1
heartbeat = 5
broker_stale_after = 3
CONF
done
echo "links_file = $A/links.jsonl" >>"$A/agent.conf"
# How other sites reach a node, for MASTER_ADDR: alpha's NodeAddr (the default), beta's by name.
echo "wan_address = %n.beta.test" >>"$B/agent.conf"

start_broker() {
    "$SF_BUILDDIR/spiderflow-brokerd" --config "$SF_TMP/brokerd.conf" >>"$SF_TMP/brokerd.log" 2>&1 &
    BROKER_PID=$!
    for _ in $(seq 50); do curl -sf "$URL/healthz" >/dev/null && return 0; sleep 0.1; done
    sf_log "brokerd did not start"; cat "$SF_TMP/brokerd.log" >&2; return 1
}
# start_agent CLUSTER: sets AGENT_<CLUSTER>
start_agent() {
    SLURM_CONF=$SF_TMP/$1/slurm.conf "$SF_BUILDDIR/spiderflow-agent" --config "$SF_TMP/$1/agent.conf" >>"$SF_TMP/$1/agent.log" 2>&1 &
    AGENT_PIDS+=($!)
    eval "AGENT_$1=$!"
}
stop_pid() { kill "$1" 2>/dev/null; wait "$1" 2>/dev/null; }
fed() { curl -sf -H "Authorization: Bearer tok-tools" "$URL/v1/federation"; }
# within SECONDS COMMAND...: polls COMMAND every 0.2 s until it succeeds or time is up
within() { wait_for "$@" >/dev/null; }
# wait_for SECONDS COMMAND...: the same, printing the seconds it took
wait_for() {
    local limit=$1 t0 now
    shift
    t0=$(date +%s.%N)
    while :; do
        if "$@" >/dev/null 2>&1; then python3 -c "print(round($(date +%s.%N) - $t0, 1))"; return 0; fi
        now=$(date +%s.%N)
        python3 -c "import sys; sys.exit(0 if $now - $t0 < $limit else 1)" || return 1
        sleep 0.2
    done
}
has_job() { fed | python3 -c "import json,sys; j=json.load(sys.stdin)['state']; sys.exit(0 if any(a['job']=='$1' for a in j.get('jobs',[])) else 1)"; }
no_job() { ! has_job "$1"; }
node_state_is() { fed | python3 -c "import json,sys; j=json.load(sys.stdin)['state']; sys.exit(0 if any(n['cluster']=='$1' and n['node']=='$2' and n['state']=='$3' for n in j.get('nodes',[])) else 1)"; }
free_gpus() { clusters | python3 -c "import json,sys; print(sum(c['free_gpus'] for c in json.load(sys.stdin)['clusters'] if c['name']=='$1'))"; }

sf_start_munge || exit 1
sf_start_slurm "$A" "${ALPHA_NODES[@]}" || exit 1
sf_start_slurm "$B" "${BETA_NODES[@]}" || exit 1
start_broker || exit 1
start_agent alpha
start_agent beta

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
SLURM_CONF=$A/slurm.conf sbatch --llm-model=llama3-8b --llm-global-batch=64 --gpus=24 --wrap true >"$SF_TMP/big.out" 2>&1
expect "24 GPUs on alpha: refused naming alpha's 16 and the federation's 24 free" \
    grep -q "cluster 'alpha' has 16 (2 nodes); the federation has 24 free, but this cluster does not plan across sites" "$SF_TMP/big.out"

# --- 4. a drained node leaves the free count ---------------------------------------------------
SLURM_CONF=$B/slurm.conf scontrol update nodename=bn3 state=drain reason="bad DIMM"
expect "a drained node (beta:bn3) is drained in the broker" within 10 node_state_is beta bn3 drained
expect "beta has no GPU free with bn3 drained and 2 nodes busy" test "$(free_gpus beta)" = 0
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
xjob() { curl -s -H "Authorization: Bearer tok-tools" "$URL/v1/xjobs/$1"; }
xjob_field() { xjob "$1" | python3 -c "import json,sys; b=json.load(sys.stdin); print($2)"; }
xjob_state_is() { [ "$(xjob_field "$1" "b['state']")" = "$2" ]; }
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
    eval "stop_pid \$AGENT_$c"
    start_agent "$c"
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
rm -f /root/slurm-"$part0".out /root/slurm-"$part1".out 2>/dev/null

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
no_res_left() { [ "$(SLURM_CONF=$A/slurm.conf scontrol -o show reservation 2>/dev/null | grep -c spiderflow-)" = 0 ]; }
expect "... and no reservation is left behind" within 20 no_res_left

# --- 10. plain sbatch: a job larger than its cluster runs across both as one world --------------
sed -i 's/^cross_site = no$/cross_site = yes/' "$A/spiderflow.conf"
touch -d '+1 second' "$A/spiderflow.conf"   # a new mtime even within the second of the last write
X=$SF_TMP/sbatch-x
mkdir -p "$X"
cat >"$X/train.sh" <<SCRIPT
#!/bin/bash
echo "\$SLURM_CLUSTER_NAME \$SPIDERFLOW_XJOB_PART \$SPIDERFLOW_RANK_BASE \$SPIDERFLOW_WORLD_SIZE \$MASTER_ADDR:\$MASTER_PORT" >$X/batch-\$SLURM_CLUSTER_NAME.txt
srun bash -c 'echo "\$SLURM_CLUSTER_NAME \$RANK \$WORLD_SIZE \$MASTER_ADDR:\$MASTER_PORT \$SLURM_PROCID \$(date +%s.%N)" >$X/rank-\$RANK.txt'
sleep 300
SCRIPT
SLURM_CONF=$A/slurm.conf sbatch --parsable --llm-model=llama3-8b --llm-global-batch=64 --gpus=24 -o /dev/null \
    "$X/train.sh" >"$X/beta-only.out" 2>&1
expect "24 GPUs fit beta alone, where they run best: alpha's sbatch says so" grep -q "runs best on cluster 'beta' alone (24 GPUs)" "$X/beta-only.out"
SLURM_CONF=$A/slurm.conf sbatch --parsable --llm-model=llama3-8b --llm-global-batch=64 --gpus=32 -o "$X/home.out" \
    "$X/train.sh" >"$X/sbatch.out" 2>"$X/sbatch.err"
home=$(tr -d '[:space:]' <"$X/sbatch.out")
expect "sbatch --gpus=32 on alpha (16 GPUs) is accepted as a cross-site job (got '$home': $(head -c 300 "$X/sbatch.err"))" test -n "$home"
expect "... sbatch names every part's cluster and GPUs" grep -q "across 2 clusters: .*alpha .* GPUs, ranks .* (this job)" "$X/sbatch.err"
held_reason=$(SLURM_CONF=$A/slurm.conf squeue -h -j "$home" -o %r)
expect "... the home job waits, held (reason: $held_reason)" test "${held_reason#JobHeld}" != "$held_reason"
took=$(wait_for 90 xjob_state_is "alpha:$home" running)
expect "the agent hands it to the broker and both parts run within 90 s of sbatch (took ${took:-more than 90} s)" test -n "$took"
all_ranks() { [ "$(ls "$X" | grep -c '^rank-')" = 32 ]; }
within 30 all_ranks
ranks=$(cat "$X"/rank-*.txt 2>/dev/null | awk '{print $2}' | sort -n | tr '\n' ' ')
expect "the srun steps of both parts form one world of ranks 0-31 (got: $ranks)" test "$ranks" = "$(seq 0 31 | tr '\n' ' ')"
on_their_clusters() {
    xjob "alpha:$home" | python3 -c "
import json, sys
b = json.load(sys.stdin)
for p in b['parts']:
    for r in range(p['first_rank'], p['first_rank'] + p['ranks']):
        c = open('$X/rank-%d.txt' % r).read().split()[0]
        if c != p['cluster']: sys.exit('rank %d on %s, not %s' % (r, c, p['cluster']))"
}
expect "... each part's ranks run on its own cluster, in plan order" on_their_clusters
expect "... every rank has WORLD_SIZE 32 and one MASTER_ADDR:MASTER_PORT" test "$(awk '{print $3, $4}' "$X"/rank-*.txt | sort -u | wc -l) $(awk '{print $3}' "$X"/rank-*.txt | sort -u)" = "1 32"
expect "... SLURM_PROCID is the global rank in both parts" test "$(awk '$2 != $5' "$X"/rank-*.txt | wc -l)" = 0
read -r hc hp hb hw hm <"$X/batch-alpha.txt"
read -r bc bp bb bw bm <"$X/batch-beta.txt"
want=$(xjob_field "alpha:$home" "' '.join('%d %d %d' % (k, p['first_rank'], b['world_size']) for k, p in enumerate(b['parts']) if p['cluster'] == 'alpha') + ' / ' + ' '.join('%d %d %d' % (k, p['first_rank'], b['world_size']) for k, p in enumerate(b['parts']) if p['cluster'] == 'beta')")
expect "the batch scripts see their part's place (got: $hp $hb $hw / $bp $bb $bw, want $want)" test "$hp $hb $hw / $bp $bb $bw" = "$want"
first_addr=$(xjob_field "alpha:$home" "b['parts'][0]['address']")
expect "... and the same master in both ($hm, $bm): part 0's first node at the address its agent gives other sites ($first_addr)" \
    test "$hm" = "$bm" -a "${hm%%:*}" = "$first_addr" -a "${first_addr#*.}" != "$first_addr"
skew=$(python3 -c "
import glob
t = {c: min(float(l.split()[5]) for f in glob.glob('$X/rank-*.txt') for l in open(f) if l.split()[0] == c) for c in ('alpha', 'beta')}
print(f'{abs(t[\"alpha\"] - t[\"beta\"]):.2f}')")
echo "# sbatch cross-site: sbatch to both parts running ${took:-?} s; skew between the parts' first ranks $skew s"
beta_part=$(xjob_field "alpha:$home" "[p['job_id'] for p in b['parts'] if p['cluster'] == 'beta'][0]")
SLURM_CONF=$A/slurm.conf scancel "$home"
expect "scancel of the home job ends the cross-site job" within 30 xjob_state_is "alpha:$home" failed
beta_gone() { [ -z "$(SLURM_CONF=$B/slurm.conf squeue -h -j "$beta_part" -t R,PD,CG -o %i 2>/dev/null)" ]; }
expect "... and beta's part ($beta_part) with it" within 30 beta_gone
expect "... and no reservation is left behind" within 20 no_res_left
rm -f /root/slurm-"$beta_part".out 2>/dev/null

SLURM_CONF=$A/slurm.conf salloc --llm-model=llama3-8b --llm-global-batch=64 --gpus=32 true >"$X/salloc.out" 2>&1
expect "salloc of a cross-site job is refused: it runs as a batch job" grep -q "submit it with sbatch" "$X/salloc.out"

expect "no agent crashed" bash -c "! grep -qi 'terminate\|abort\|segmentation' '$A/agent.log' '$B/agent.log'"
if [ "$FAILS" -ne 0 ]; then
    echo "--- alpha agent log"; tail -20 "$A/agent.log"
    echo "--- beta agent log"; tail -20 "$B/agent.log"
    echo "--- broker log"; tail -20 "$SF_TMP/brokerd.log"
    echo "--- sbatch on alpha"; cat "$SF_TMP/big.out" "$SF_TMP/big2.out"
fi
echo "$FAILS failure(s)"
[ "$FAILS" -eq 0 ]
