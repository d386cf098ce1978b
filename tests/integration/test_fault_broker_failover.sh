#!/bin/bash
# Fault: the active broker killed (-9) during co-allocation, with a standby on the same MariaDB.
# Two real Slurm clusters on localhost (alpha, beta: two nodes of 8 fake GPUs each), a real
# mariadbd (mariadb.sh), brokers a and b over it under the lease (lease_ttl 3 s), and one agent
# per cluster given both brokers' URLs. Two cross-site jobs over both clusters:
#   1. a is killed while the first job seeks its common start (negotiating or reserving);
#   2. a is back as the standby, and b, active now, is killed while the second job's parts are
#      being submitted into their reservations (starting).
# Each time the standby takes the lease, goes on with the job from the store, and the job starts
# exactly once: one run, one Slurm job per part on each cluster, both parts running together; at
# the end no reservation is left. Figures: takeover after the kill, kill to every part running.
. "$(dirname "$0")/federation.sh"
. "$(dirname "$0")/mariadb.sh"
sf_mariadb_can_run || exit 77
grep -q '^#define SF_HAVE_MARIADB 1' "$SF_BUILDDIR/config.h" || { sf_log "skip: built without MariaDB"; exit 77; }
PB=
trap 'stop_pid "$PB"; stop_pid "$BROKER_PID"; BROKER_PID=; sf_mariadb_stop; fed_stop_all' EXIT

fed_init alpha:an1,an2 beta:bn1,bn2
sf_mariadb_start "$SF_TMP/db" || exit 1
DB=$(sf_mariadb_broker_db "$SF_TMP/db-password") || exit 1
# Broker a is federation.sh's (brokerd.conf, URL); b the same on another port. The common start
# 10 s ahead: the second kill lands while the parts wait for it in their reservations.
sed -i "s#^db = .*#db = $DB#; s/^coalloc_lead = .*/coalloc_lead = 10/" "$SF_TMP/brokerd.conf"
printf 'db_password_file = %s\nlease_ttl = 3\n' "$SF_TMP/db-password" >>"$SF_TMP/brokerd.conf"
URL_A=$URL
PORT_B=$(free_port)
URL_B=http://127.0.0.1:$PORT_B
sed "s/^port = .*/port = $PORT_B/" "$SF_TMP/brokerd.conf" >"$SF_TMP/brokerd-b.conf"
for c in alpha beta; do
    sed -i "s#^broker = .*#broker = $URL_A,$URL_B#" "$SF_TMP/$c/agent.conf"
    echo "part_min_uid = 0" >>"$SF_TMP/$c/agent.conf"   # the test's user is root
done
health() { curl -s --max-time 2 "$1/healthz"; }
is_active() { [ "$(health "$1")" = "ok active" ]; }
start_b() {
    "$SF_BUILDDIR/spiderflow-brokerd" --config "$SF_TMP/brokerd-b.conf" >>"$SF_TMP/brokerd-b.log" 2>&1 &
    PB=$!
    within 10 curl -sf "$URL_B/healthz"
}
fed_start
expect "broker a holds the lease" within 10 is_active "$URL_A"
start_b
expect "broker b is the standby" test "$(health "$URL_B")" = "ok standby"
clusters() { curl -sf -H "Authorization: Bearer tok-tools" "$URL/v1/clusters"; }
published() { [ "$(clusters | python3 -c 'import json,sys; print(sum(1 for c in json.load(sys.stdin)["clusters"] if c["published"]))')" = 2 ]; }
expect "both agents publish their clusters" within 30 published

OUT=$SF_TMP/out
mkdir -p "$OUT"
submit_xjob() {  # ID: alpha 1 node, beta 1 node; each part writes when it started
    python3 - "$1" "$OUT" >"$SF_TMP/xjob.json" <<'PY'
import json, sys
script = "#!/bin/bash\ndate +%s.%N >> " + sys.argv[2] + "/start-$SPIDERFLOW_XJOB-$SPIDERFLOW_XJOB_PART.txt\nsleep 300\n"
print(json.dumps({"id": sys.argv[1], "user": "root", "time_limit_s": 600, "script": script,
                  "parts": [{"cluster": "alpha", "nodes": 1, "gpus_per_node": 8, "ranks": 8},
                            {"cluster": "beta", "nodes": 1, "gpus_per_node": 8, "ranks": 8}]}))
PY
    curl -s -o /dev/null -w '%{http_code}' -X POST -H "Authorization: Bearer tok-alpha" --data-binary "@$SF_TMP/xjob.json" "$URL/v1/xjobs"
}
cancel_xjob() {
    curl -s -o /dev/null -w '%{http_code}' -X POST -H "Authorization: Bearer tok-alpha" --data-binary '{"reason": "the test is done with it"}' "$URL/v1/xjobs/$1/cancel"
}
state_in() { local s; s=$(xjob_field "$1" "b['state']" 2>/dev/null); [[ " $2 " == *" $s "* ]]; }
# exactly_once XJOB: one run (the broker's history), one Slurm job per part on each cluster, and
# each part's script started once.
exactly_once() {
    local x=$1 runs
    expect "... one Slurm job of it on each cluster (alpha $(part_jobs_of "$x" alpha), beta $(part_jobs_of "$x" beta))" \
        test "$(part_jobs_of "$x" alpha) $(part_jobs_of "$x" beta)" = "1 1"
    started_once() { [ "$(cat "$OUT/start-$x-0.txt" 2>/dev/null | wc -l) $(cat "$OUT/start-$x-1.txt" 2>/dev/null | wc -l)" = "1 1" ]; }
    expect "... each part's script started once" within 20 started_once
    # The broker records a run when the agents report both parts running, a poll after Slurm
    # started them: the count is read once it says so.
    expect "... the active broker says $x is running" within 30 state_in "$x" running
    runs=$(xjob_field "$x" "len(b['runs'])")
    expect "$x: one run in the broker's history ($runs runs)" test "$runs" = 1
    expect "... both parts running in Slurm" parts_running "$x" alpha beta
}
# kill_active URL PID_VAR NEXT_URL XJOB STATES: kills the active broker once XJOB is in one of
# STATES, then waits for the standby to take over; prints the figures.
kill_active() {
    local dead=$1 pid=$2 next=$3 x=$4 states=$5 t_kill took started
    expect "$x reaches $states on the active broker" within 60 state_in "$x" "$states"
    echo "# killing the active broker while $x is $(xjob_field "$x" "b['state']")"
    t_kill=$(date +%s.%N)
    kill -9 "$pid"; wait "$pid" 2>/dev/null
    URL=$next
    took=$(wait_for 15 is_active "$next")
    expect "... the standby takes the lease (took ${took:-more than 15} s after the kill)" test -n "$took"
    started=$(wait_for 90 parts_running "$x" alpha beta)
    expect "... and the job starts ($(python3 -c "print(round(${took:-0} + ${started:-0}, 1))") s after the kill)" test -n "$started"
    echo "# kill -9 of the active broker while $x was in ($states): standby active ${took:-never} s after the kill (lease_ttl 3 s), every part running $(python3 -c "print(round(${took:-0} + ${started:-0}, 1))") s after"
}

# --- 1. killed while the job seeks its common start -------------------------------------------
expect "a cross-site job goes to broker a" test "$(submit_xjob alpha:501)" = 201
kill_active "$URL_A" "$BROKER_PID" "$URL_B" alpha:501 "negotiating reserving"
BROKER_PID=
exactly_once alpha:501

# --- 2. killed while the parts are submitted ---------------------------------------------------
# a again, as the standby now; the first job ended to free the nodes.
start_broker_a() {
    "$SF_BUILDDIR/spiderflow-brokerd" --config "$SF_TMP/brokerd.conf" >>"$SF_TMP/brokerd.log" 2>&1 &
    BROKER_PID=$!
    within 10 curl -sf "$URL_A/healthz"
}
start_broker_a
expect "broker a is back as the standby" test "$(health "$URL_A")" = "ok standby"
expect "alpha cancels alpha:501 on the active broker" test "$(cancel_xjob alpha:501)" = 200
ended() { state_in "$1" "failed completed cancelled"; }
expect "the first job ends on its cancel" within 30 ended alpha:501
expect "a second cross-site job goes to broker b" test "$(submit_xjob alpha:502)" = 201
kill_active "$URL_B" "$PB" "$URL_A" alpha:502 "starting"
PB=
exactly_once alpha:502
# Both parts ran together: their scripts started within the start barrier of each other.
skew=$(python3 -c "print(round(abs(float(open('$OUT/start-alpha:502-0.txt').readline()) - float(open('$OUT/start-alpha:502-1.txt').readline())), 2))" 2>/dev/null)
echo "# alpha:502: skew between the parts' starts across the failover ${skew:-?} s"
expect "alpha cancels alpha:502 on the active broker" test "$(cancel_xjob alpha:502)" = 200
expect "the second job ends on its cancel" within 30 ended alpha:502
expect "no reservation is left on either cluster" within 30 no_reservation_left
no_parts() { [ "$(part_jobs_running)" = 0 ]; }
part_jobs_running() { for c in alpha beta; do on "$c" squeue -h -t R,PD -o %k; done | grep -c 'spiderflow-xjob '; }
expect "no part is left running or pending" within 30 no_parts
expect "no agent crashed" bash -c "! grep -qi 'terminate\|abort\|segmentation' $SF_TMP/*/agent.log"
if [ "$FAILS" -ne 0 ]; then
    for x in alpha:501 alpha:502; do "$SF_BUILDDIR/spiderflow" jobs --broker "$URL_A,$URL_B" --token-file "$SF_TMP/reader.token" "$x" 2>&1 | tail -20; done
    for c in alpha beta; do echo "--- $c agent log"; tail -15 "$SF_TMP/$c/agent.log"; done
    echo "--- broker a log"; tail -20 "$SF_TMP/brokerd.log"
    echo "--- broker b log"; tail -20 "$SF_TMP/brokerd-b.log"
fi
rm -f ~/spiderflow-alpha:50[12]-*.out ~/spiderflow-alpha_50[12]-*.out 2>/dev/null
echo "$FAILS failure(s)"
[ "$FAILS" -eq 0 ]
