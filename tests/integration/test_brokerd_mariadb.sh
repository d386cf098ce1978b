#!/bin/bash
# Integration: two spiderflow-brokerd sharing one real MariaDB (mariadbd started by this test
# under a temporary directory, stopped by PID). Exactly one is active (the lease); the standby
# serves the same reads and answers writes with 503. kill -9 of the active broker in the middle
# of a burst of updates: the standby takes over within the lease, every acknowledged update is
# there and none is half-applied. A clean stop hands over at once; a database restart makes the
# active broker step down and come back. Refused requests leave the database unchanged.
set -u
. "$(dirname "$0")/mariadb.sh"
sf_mariadb_can_run || exit 77
grep -q '^#define SF_HAVE_MARIADB 1' "$SF_BUILDDIR/config.h" || { echo "SKIP: built without MariaDB"; exit 77; }
BROKERD=$SF_BUILDDIR/spiderflow-brokerd
S=$SF_BUILDDIR/spiderflow
TOPO=$SF_SRCDIR/contrib/topologies/aws-4.json
command -v curl >/dev/null || { echo "SKIP: curl not installed"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/sf-brokerd-mariadb.XXXXXX")
PA= PB=
stop_pid() { [ -n "$1" ] && kill "$1" 2>/dev/null && wait "$1" 2>/dev/null; }
trap 'stop_pid "$PA"; stop_pid "$PB"; sf_mariadb_stop; rm -rf "$T"' EXIT

. "$(dirname "$0")/checks.sh"
now() { date +%s.%N; }
since() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$1" "$(now)"; }

sf_mariadb_start "$T/db" || exit 1
DB=$(sf_mariadb_broker_db "$T/db-password") || exit 1
PASSWORD=$(cat "$T/db-password")

PORT_A=$(free_port)
PORT_B=$(free_port)
URL_A=http://127.0.0.1:$PORT_A
URL_B=http://127.0.0.1:$PORT_B
{
    echo "cluster oregon $(echo tok-oregon | "$BROKERD" --hash-token)"
    echo "cluster ohio $(echo tok-ohio | "$BROKERD" --hash-token)"
    echo "reader tools $(echo tok-tools | "$BROKERD" --hash-token)"
} >"$T/tokens"
for x in a b; do
    port=$PORT_A
    [ $x = b ] && port=$PORT_B
    cat >"$T/$x.conf" <<CONF
listen = 127.0.0.1
port = $port
db = $DB
db_password_file = $T/db-password
lease_ttl = 3
topology = $TOPO
tokens = $T/tokens
max_body = 65536
rate_limit = 10000
CONF
done

# start_broker a|b: starts it, waits for /healthz, sets PA or PB.
start_broker() {
    local url=$URL_A pid
    [ "$1" = b ] && url=$URL_B
    "$BROKERD" --config "$T/$1.conf" >>"$T/$1.log" 2>&1 &
    pid=$!
    if [ "$1" = a ]; then PA=$pid; else PB=$pid; fi
    for _ in $(seq 100); do curl -sf "$url/healthz" >/dev/null && return 0; sleep 0.1; done
    echo "brokerd $1 did not start:"; cat "$T/$1.log"; return 1
}
health() { curl -s --max-time 2 "$1/healthz"; }
# wait_for URL TEXT SECONDS: until /healthz says TEXT
wait_for() {
    local deadline
    deadline=$(($(date +%s) + $3))
    while [ "$(date +%s)" -le "$deadline" ]; do [ "$(health "$1")" = "$2" ] && return 0; sleep 0.1; done
    return 1
}
# code URL METHOD PATH TOKEN [BODY_FILE]: prints the HTTP status; headers and body go to $T/head, $T/body
code() {
    local args=(-s -o "$T/body" -D "$T/head" -w '%{http_code}' --max-time 5 -X "$2")
    [ -n "$4" ] && args+=(-H "Authorization: Bearer $4")
    [ -n "${5:-}" ] && args+=(--data-binary "@$5")
    curl "${args[@]}" "$1$3"
}
snapshot() { "$S" query --topology "$TOPO" | sed -n '/^{/,$p'; }
db_sum() {
    sf_mariadb_sql "SELECT cluster, SHA2(snapshot, 256), updated_at FROM spiderflow.parts ORDER BY cluster;
                    SELECT name, value FROM spiderflow.meta ORDER BY name" | sha256sum
}

# --- 0. a bad database set-up stops the broker with the reason -------------------------------
chmod 644 "$T/db-password"
"$BROKERD" --config "$T/a.conf" >"$T/err.log" 2>&1
rc=$?
expect "a password file others can read: exit 2, naming it" bash -c "[ $rc = 2 ] && grep -q 'db-password is readable by others' '$T/err.log'"
chmod 600 "$T/db-password"
echo wrong >"$T/wrong-password"
chmod 600 "$T/wrong-password"
sed "s#^db_password_file = .*#db_password_file = $T/wrong-password#" "$T/a.conf" >"$T/wrong.conf"
"$BROKERD" --config "$T/wrong.conf" >"$T/err.log" 2>&1
rc=$?
expect "a wrong password: exit 2 with the server's reason" bash -c "[ $rc = 2 ] && grep -q 'cannot connect to mysql://sfbroker@localhost.*Access denied' '$T/err.log'"
"$BROKERD" --config "$T/a.conf" --db "mysql://sfbroker:$PASSWORD@localhost/spiderflow" >"$T/err.log" 2>&1
expect "a password in the URL is refused, pointing at db_password_file" grep -q "db_password_file" "$T/err.log"

# --- 1. one active, one standby ----------------------------------------------------------------
start_broker a || exit 1
wait_for "$URL_A" "ok active" 5
start_broker b || exit 1
expect "the first broker holds the lease: 'ok active'" test "$(health "$URL_A")" = "ok active"
expect "the second is a standby: 'ok standby'" test "$(health "$URL_B")" = "ok standby"
expect "metrics: spiderflow_broker_active 0 on the standby" bash -c \
    "curl -s -H 'Authorization: Bearer tok-tools' $URL_B/metrics | grep -qx 'spiderflow_broker_active 0'"
expect "the standby's log names the active broker" grep -q "standby: serving reads; .*:$PORT_A pid $PA holds the lease" "$T/b.log"

printf 'allocate train oregon:or-gpu[001-004]=8\ndrain or-gpu005 bad DIMM\nsnapshot\n' | snapshot >"$T/oregon.json"
printf 'allocate train ohio:oh-gpu001=8\nsnapshot\n' | snapshot >"$T/ohio.json"
expect "oregon publishes to the active broker" test "$(code "$URL_A" PUT /v1/clusters/oregon/inventory tok-oregon "$T/oregon.json")" = 200
before=$(db_sum)
expect "a write to the standby: 503" test "$(code "$URL_B" PUT /v1/clusters/ohio/inventory tok-ohio "$T/ohio.json")" = 503
expect "... with Retry-After" grep -qi '^Retry-After: 1' "$T/head"
expect "... naming the active broker" grep -q "pid $PA" "$T/body"
expect "... and the database is unchanged" test "$(db_sum)" = "$before"
followed=0
for _ in $(seq 40); do
    code "$URL_B" GET /v1/clusters tok-tools >/dev/null
    grep -q '"free_gpus":88,"gpus":128,"name":"oregon"' "$T/body" && { followed=1; break; }
    sleep 0.1
done
expect "the standby serves the active broker's writes to readers" test $followed = 1

XJOB='{"id": "oregon:500", "user": "alice", "time_limit_s": 600, "script": "#!/bin/sh\nsrun train.sh\n",
       "parts": [{"cluster": "oregon", "nodes": 2, "gpus_per_node": 8, "ranks": 16},
                 {"cluster": "ohio", "nodes": 1, "gpus_per_node": 8, "ranks": 8}]}'
echo "$XJOB" >"$T/xjob.json"
expect "a cross-site job goes to the active broker" test "$(code "$URL_A" POST /v1/xjobs tok-oregon "$T/xjob.json")" = 201
expect "the standby gives no orders (503)" test "$(code "$URL_B" GET /v1/clusters/ohio/orders tok-ohio)" = 503
code "$URL_A" GET /v1/clusters/ohio/orders tok-ohio >/dev/null
cp "$T/body" "$T/orders-from-a"
standby_has_job() { code "$URL_B" GET /v1/xjobs/oregon:500 tok-tools >/dev/null && grep -q '"state":"negotiating"' "$T/body"; }
followed=0
for _ in $(seq 40); do standby_has_job && { followed=1; break; }; sleep 0.1; done
expect "the standby shows the job to readers" test $followed = 1

# --- 2. refused requests change nothing in the database ---------------------------------------
head -c 70000 /dev/zero | tr '\0' ' ' >"$T/big.json"
echo '{"deltas": [], "extra": 1}' >"$T/unknown_key.json"
before=$(db_sum)
expect "no token: 401" test "$(code "$URL_A" PUT /v1/clusters/oregon/inventory '' "$T/oregon.json")" = 401
expect "ohio's token on oregon: 403" test "$(code "$URL_A" PUT /v1/clusters/oregon/inventory tok-ohio "$T/oregon.json")" = 403
expect "oversized: 413" test "$(code "$URL_A" PUT /v1/clusters/oregon/inventory tok-oregon "$T/big.json")" = 413
expect "an unknown key: 400" test "$(code "$URL_A" POST /v1/clusters/oregon/deltas tok-oregon "$T/unknown_key.json")" = 400
expect "malformed JSON: 400" test "$(code "$URL_A" PUT /v1/clusters/oregon/inventory tok-oregon /dev/null)" = 400
expect "the database is unchanged after every refused request" test "$(db_sum)" = "$before"

# --- 3. kill -9 of the active broker during a burst: the standby takes over, nothing lost -----
# Each request allocates two jobs (cores only): both or neither. A writer that gets no answer or
# a 503 tries the other broker, as the agents' client does, for up to 15 s per request.
: >"$T/acked"
(
    for i in $(seq 1 300); do
        printf '{"deltas": [{"delta": "job_allocated", "job": "a%d", "start": 0, "end": null, "nodes": [{"cluster": "oregon", "node": "or-gpu%03d", "gpus": 0, "cores": 1}]}, {"delta": "job_allocated", "job": "b%d", "start": 0, "end": null, "nodes": [{"cluster": "oregon", "node": "or-gpu%03d", "gpus": 0, "cores": 1}]}]}' \
            "$i" $((9 + i % 8)) "$i" $((9 + i % 8)) >"$T/burst.json"
        for _ in $(seq 75); do
            got=
            for url in "$URL_A" "$URL_B"; do
                got=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 -X POST -H 'Authorization: Bearer tok-oregon' \
                    --data-binary "@$T/burst.json" "$url/v1/clusters/oregon/deltas")
                [ "$got" = 200 ] && { echo "$i" >>"$T/acked"; break; }
                [ "$got" = 400 ] && break   # already applied by a broker that died before answering
            done
            [ "$got" = 200 ] || [ "$got" = 400 ] && break
            sleep 0.2
        done
    done
) &
burst=$!
sleep 1
kill -9 "$PA"
killed_at=$(now)
wait "$PA" 2>/dev/null
PA=
acked_at_kill=$(wc -l <"$T/acked")
if wait_for "$URL_B" "ok active" 10; then took=$(since "$killed_at"); else took=never; fi
wait "$burst" 2>/dev/null
acked=$(wc -l <"$T/acked")
echo "# takeover after kill -9: $took s (lease_ttl 3 s); $acked_at_kill acknowledged before the kill, $acked in all"
expect "the standby took over within the lease and a round ($took s)" \
    python3 -c "import sys; sys.exit(0 if sys.argv[1] != 'never' and float(sys.argv[1]) <= 5.0 else 1)" "$took"
expect "the kill came in the middle of the burst ($acked_at_kill of 300 acknowledged)" test "$acked_at_kill" -gt 0 -a "$acked_at_kill" -lt 300
code "$URL_B" GET /v1/federation tok-tools >/dev/null
read -r missing half < <(burst_outcome 300 "$T/body" "$T/acked")
expect "every acknowledged update is on the new active broker ($missing missing of $acked)" test "$missing" = 0
expect "no update was half-applied ($half halves)" test "$half" = 0
expect "writes resumed on the new active broker (the burst finished)" test "$acked" -ge 295
echo tok-tools >"$T/reader.token"
chmod 600 "$T/reader.token"
"$S" federation --broker "$URL_A,$URL_B" --token-file "$T/reader.token" >"$T/federation.txt" 2>&1
expect "the client fails over: 'spiderflow federation' with the dead broker listed first" grep -qE '^oregon ' "$T/federation.txt"
code "$URL_B" GET /v1/clusters/ohio/orders tok-ohio >/dev/null
expect "the new active broker gives ohio the same cross-site orders as the dead one did" cmp -s "$T/body" "$T/orders-from-a"

# --- 4. the old active comes back as a standby; a clean stop hands over at once ---------------
start_broker a || exit 1
sleep 1.5
expect "the restarted broker is a standby" test "$(health "$URL_A")" = "ok standby"
expect "... and the active one kept the lease" test "$(health "$URL_B")" = "ok active"
kill "$PB"
stopped_at=$(now)
wait "$PB" 2>/dev/null
PB=
if wait_for "$URL_A" "ok active" 5; then handover=$(since "$stopped_at"); else handover=never; fi
echo "# handover after a clean stop: $handover s"
expect "a clean stop gives the lease up: the standby is active within 1.5 s ($handover s)" \
    python3 -c "import sys; sys.exit(0 if sys.argv[1] != 'never' and float(sys.argv[1]) <= 1.5 else 1)" "$handover"
expect "the stopped broker said so" grep -q "lease given up" "$T/b.log"
expect "writes go on with the state intact" test "$(code "$URL_A" PUT /v1/clusters/ohio/inventory tok-ohio "$T/ohio.json")" = 200
code "$URL_A" GET /v1/federation tok-tools >/dev/null
expect "... oregon's jobs from the burst are still there" grep -q '"job":"oregon:a1"' "$T/body"

# --- 5. the database goes away and comes back --------------------------------------------------
sf_mariadb_stop
expect "without its database the active broker steps down" wait_for "$URL_A" "ok standby" 5
expect "... and refuses writes with 503" test "$(code "$URL_A" PUT /v1/clusters/ohio/inventory tok-ohio "$T/ohio.json")" = 503
expect "... while still serving reads" test "$(code "$URL_A" GET /v1/clusters tok-tools)" = 200
sf_mariadb_start "$T/db" || exit 1
expect "the database back: the broker reconnects and is active again" wait_for "$URL_A" "ok active" 10
expect "... and takes writes" test "$(code "$URL_A" PUT /v1/clusters/ohio/inventory tok-ohio "$T/ohio.json")" = 200

if [ $FAILS -ne 0 ]; then
    echo "$FAILS check(s) failed" >&2
    for x in a b; do echo "--- brokerd $x log:" >&2; tail -30 "$T/$x.log" >&2; done
    exit 1
fi
exit 0
