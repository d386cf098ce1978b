#!/bin/bash
# Integration: the broker's cross-site job protocol over HTTP on loopback (brokerd started under
# a temporary directory, stopped by PID), with curl standing in for the agents. A home cluster
# submits a two-part job; each cluster fetches its orders and reports: will-run offers, a common
# start, reservations, submission into them with one world (ranks in plan order, one master),
# both running. kill -9 of the broker mid-way: the job comes back with the same orders. One part
# failing ends the other and says which; a cancel ends every part. Bad requests change nothing.
set -u
. "$(dirname "$0")/one_broker.sh" xjobs
echo "coalloc_lead = 2" >>"$T/brokerd.conf"
one_broker_tokens oregon ohio virginia
# code METHOD PATH TOKEN [BODY]: prints the HTTP status; the answer goes to $T/body
code() {
    local args=(-s -o "$T/body" -w '%{http_code}' -X "$1")
    [ -n "$3" ] && args+=(-H "Authorization: Bearer $3")
    [ -n "${4:-}" ] && args+=(--data-binary "$4")
    curl "${args[@]}" "$URL$2"
}
# field EXPR: a Python expression over the last answer `b`
field() { python3 -c "import json,sys; b=json.load(open(sys.argv[1])); print($1)" "$T/body"; }
store_sum() { cat "$T"/broker.db* 2>/dev/null | sha256sum; }
orders() { code GET "/v1/clusters/$1/orders" "tok-$1" >/dev/null; }
report() { code POST "/v1/clusters/$1/reports" "tok-$1" "{\"reports\": [$2]}"; }
job_state() { code GET "/v1/xjobs/$1" tok-tools >/dev/null; field "b['state']"; }

JOB='{"id": "oregon:101", "user": "alice", "account": "ml", "time_limit_s": 3600, "script": "#!/bin/sh\nsrun train.sh\n",
      "parts": [{"cluster": "oregon", "nodes": 2, "gpus_per_node": 8, "ranks": 16},
                {"cluster": "ohio", "nodes": 1, "gpus_per_node": 8, "ranks": 8}]}'

start || exit 1

# --- 1. bad submissions: refused with the reason, nothing stored ------------------------------
before=$(store_sum)
expect "a reader may not submit: 403" test "$(code POST /v1/xjobs tok-tools "$JOB")" = 403
expect "another cluster's id: 400 naming the rule" bash -c \
    "[ \"\$(curl -s -o '$T/b1' -w '%{http_code}' -X POST -H 'Authorization: Bearer tok-ohio' --data-binary '$JOB' $URL/v1/xjobs)\" = 400 ] && grep -q 'HOME:JOBID' '$T/b1'"
expect "a cluster outside the topology: 400 naming it" bash -c \
    "[ \"\$(curl -s -o '$T/b2' -w '%{http_code}' -X POST -H 'Authorization: Bearer tok-oregon' \
       --data-binary '{\"id\": \"oregon:1\", \"user\": \"u\", \"time_limit_s\": 60, \"script\": \"#!/bin/sh\", \"parts\": [{\"cluster\": \"oregon\", \"nodes\": 1, \"gpus_per_node\": 8, \"ranks\": 8}, {\"cluster\": \"mars\", \"nodes\": 1, \"gpus_per_node\": 8, \"ranks\": 8}]}' \
       $URL/v1/xjobs)\" = 400 ] && grep -q \"no cluster 'mars'\" '$T/b2'"
expect "an unknown key: 400" test \
    "$(code POST /v1/xjobs tok-oregon '{"id": "oregon:2", "user": "u", "time_limit_s": 60, "parts": [], "command": "/etc/shadow"}')" = 400
expect "one part only: 400" test \
    "$(code POST /v1/xjobs tok-oregon '{"id": "oregon:3", "user": "u", "time_limit_s": 60, "script": "#!/bin/sh", "parts": [{"cluster": "oregon", "nodes": 1, "gpus_per_node": 8, "ranks": 8}]}')" = 400
expect "the store is unchanged by refused submissions" test "$(store_sum)" = "$before"

# --- 2. the protocol, step by step ------------------------------------------------------------
expect "the home cluster submits: 201" test "$(code POST /v1/xjobs tok-oregon "$JOB")" = 201
expect "... and it is negotiating at once" test "$(field "b['state']")" = negotiating
expect "the same id again: 409" test "$(code POST /v1/xjobs tok-oregon "$JOB")" = 409
orders ohio
expect "ohio is asked when its part could start" test "$(field "b['orders'][0]['order'] + ' ' + str(b['orders'][0]['nodes'])")" = "will_run 1"
expect "ohio's token cannot read oregon's orders: 403" test "$(code GET /v1/clusters/oregon/orders tok-ohio)" = 403
NOW=$(date +%s)
report oregon "{\"report\": \"offer\", \"xjob\": \"oregon:101\", \"part\": 0, \"attempt\": 1, \"earliest_start\": $NOW}" >/dev/null
expect "an offer from the wrong cluster is ignored" bash -c \
    "curl -s -X POST -H 'Authorization: Bearer tok-ohio' --data-binary '{\"reports\": [{\"report\": \"offer\", \"xjob\": \"oregon:101\", \"part\": 0, \"attempt\": 1, \"earliest_start\": 5}]}' \
     $URL/v1/clusters/ohio/reports | grep -q '\"ignored\":1'"
START=$((NOW + 120))
report ohio "{\"report\": \"offer\", \"xjob\": \"oregon:101\", \"part\": 1, \"attempt\": 1, \"earliest_start\": $START}" >/dev/null
expect "both offers in: reserving" test "$(job_state oregon:101)" = reserving
expect "... at the later offer" test "$(field "b['start_at']")" = "$START"
orders oregon
expect "oregon is told to reserve its 2 nodes at the common start" test \
    "$(field "' '.join(str(b['orders'][0][k]) for k in ('order', 'nodes', 'start_at', 'reservation'))")" = \
    "reserve 2 $START spiderflow-oregon_101-a1-p0"

# kill -9 with the job half reserved: it comes back as it was.
report oregon '{"report": "reserved", "xjob": "oregon:101", "part": 0, "attempt": 1, "reservation": "spiderflow-oregon_101-a1-p0", "node_list": ["or-gpu003", "or-gpu004"]}' >/dev/null
orders ohio
cp "$T/body" "$T/ohio-orders-before"
kill -9 "$PID"
wait "$PID" 2>/dev/null
PID=
start || exit 1
orders ohio
expect "after kill -9 and restart ohio gets the same orders" cmp -s "$T/body" "$T/ohio-orders-before"
expect "... and the job is still reserving" test "$(job_state oregon:101)" = reserving
grep -q "spiderflow: brokerd" "$T/brokerd.log"

report ohio '{"report": "reserved", "xjob": "oregon:101", "part": 1, "attempt": 1, "reservation": "spiderflow-oregon_101-a1-p1", "node_list": ["oh-gpu002"]}' >/dev/null
expect "both reserved: starting" test "$(job_state oregon:101)" = starting
orders ohio
expect "ohio submits into its reservation as rank 16 of 24, master or-gpu003" test \
    "$(field "' '.join(str(b['orders'][0][k]) for k in ('order', 'reservation', 'first_rank', 'world_size', 'master_node', 'user'))")" = \
    "submit spiderflow-oregon_101-a1-p1 16 24 or-gpu003 alice"
expect "... with the user's script" test "$(field "b['orders'][0]['script'].splitlines()[1]")" = "srun train.sh"
orders oregon
expect "oregon's part holds rank 0" test "$(field "b['orders'][0]['first_rank']")" = 0
report oregon '{"report": "running", "xjob": "oregon:101", "part": 0, "attempt": 1, "job_id": 4242}' >/dev/null
report ohio '{"report": "running", "xjob": "oregon:101", "part": 1, "attempt": 1, "job_id": 77}' >/dev/null
expect "both parts running: running" test "$(job_state oregon:101)" = running
orders oregon
expect "a running job needs no orders" test "$(field "len(b['orders'])")" = 0

# --- 3. one part fails: the other is ended, the reason names the part -------------------------
report ohio '{"report": "ended", "xjob": "oregon:101", "part": 1, "attempt": 1, "job_id": 77, "completed": false, "reason": "NODE_FAIL on oh-gpu002"}' >/dev/null
expect "a failed part: the job is ending" test "$(job_state oregon:101)" = ending
orders oregon
expect "oregon is told to cancel job 4242, naming ohio's failure" test \
    "$(field "b['orders'][0]['order'] + ' ' + str(b['orders'][0]['job_id']) + ' ' + b['orders'][0]['reason']")" = \
    "cancel 4242 part 1 on ohio ended: NODE_FAIL on oh-gpu002"
expect "... then to release its reservation" test "$(field "b['orders'][1]['order'] + ' ' + b['orders'][1]['reservation']")" = \
    "release spiderflow-oregon_101-a1-p0"
report oregon '{"report": "ended", "xjob": "oregon:101", "part": 0, "attempt": 1, "job_id": 4242, "reason": "cancelled"}' >/dev/null
expect "every part ended: failed" test "$(job_state oregon:101)" = failed
expect "... with the reason" test "$(field "b['reason']")" = "part 1 on ohio ended: NODE_FAIL on oh-gpu002"

# --- 4. cancel --------------------------------------------------------------------------------
JOB2=${JOB//oregon:101/oregon:102}
code POST /v1/xjobs tok-oregon "$JOB2" >/dev/null
expect "virginia holds no part: may not cancel (403)" test "$(code POST /v1/xjobs/oregon:102/cancel tok-virginia '{}')" = 403
expect "ohio holds a part: may cancel" test "$(code POST /v1/xjobs/oregon:102/cancel tok-ohio '{"reason": "scancel 9 on ohio"}')" = 200
expect "... and the job failed with that reason" test "$(job_state oregon:102)" = failed
expect "... 'cancelled: scancel 9 on ohio'" test "$(field "b['reason']")" = "cancelled: scancel 9 on ohio"
expect "cancelling it again: 409" test "$(code POST /v1/xjobs/oregon:102/cancel tok-oregon '{}')" = 409
expect "an unknown job: 404" test "$(code GET /v1/xjobs/oregon:999 tok-tools)" = 404

# --- 5. listing and metrics -------------------------------------------------------------------
code GET /v1/xjobs tok-tools >/dev/null
expect "readers list every cross-site job" test "$(field "' '.join(j['id'] for j in b['xjobs'])")" = "oregon:101 oregon:102"
expect "... without the users' scripts" test "$(field "sum('script' in j for j in b['xjobs'])")" = 0
expect "metrics count cross-site jobs by state" bash -c \
    "curl -s -H 'Authorization: Bearer tok-tools' $URL/metrics | grep -qx 'spiderflow_broker_cross_site_jobs{state=\"failed\"} 2'"

# --- 6. the command line ----------------------------------------------------------------------
S=$SF_BUILDDIR/spiderflow
echo tok-tools >"$T/reader.token"
echo tok-oregon >"$T/oregon.token"
chmod 600 "$T/reader.token" "$T/oregon.token"
"$S" jobs --broker "$URL" --token-file "$T/reader.token" >"$T/jobs.txt" 2>&1
expect "'spiderflow jobs' lists the failed job with its parts and reason" bash -c \
    "grep -q '^oregon:101 *failed' '$T/jobs.txt' && grep -q 'part 1  ohio .*ranks 16-23  job 77' '$T/jobs.txt' && grep -q 'reason: part 1 on ohio ended: NODE_FAIL' '$T/jobs.txt'"
"$S" jobs --broker "$URL" --token-file "$T/reader.token" oregon:101 >"$T/job.txt" 2>&1
expect "'spiderflow jobs ID' shows its history" grep -q "reserving: common start at $START" "$T/job.txt"
code POST /v1/xjobs tok-oregon "${JOB//oregon:101/oregon:103}" >/dev/null
"$S" cancel --broker "$URL" --token-file "$T/reader.token" oregon:103 >"$T/cancel.txt" 2>&1
rc=$?
expect "'spiderflow cancel' with a reader's token: exit 3, the broker's refusal" bash -c "[ $rc = 3 ] && grep -q 'may not cancel' '$T/cancel.txt'"
"$S" cancel --broker "$URL" --token-file "$T/oregon.token" --reason "wrong data set" oregon:103 >"$T/cancel.txt" 2>&1
expect "'spiderflow cancel' with oregon's token ends it" test "$(job_state oregon:103)" = failed
expect "... with the reason given" test "$(field "b['reason']")" = "cancelled: wrong data set"

if [ $FAILS -ne 0 ]; then
    echo "$FAILS check(s) failed" >&2
    tail -20 "$T/brokerd.log" >&2
    exit 1
fi
exit 0
