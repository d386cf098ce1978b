#!/bin/bash
# Integration: spiderflow-brokerd on loopback, started under a temporary directory and stopped
# by PID. Clusters publish snapshots and deltas with their tokens; requests without a token, with
# another cluster's token, oversized or malformed are refused and leave the store byte-identical;
# kill -9 in the middle of a burst of updates loses no acknowledged update and half-applies none.
set -u
. "$(dirname "$0")/one_broker.sh" brokerd
S=$SF_BUILDDIR/spiderflow
echo "max_body = 65536" >>"$T/brokerd.conf"
one_broker_tokens oregon ohio
# code METHOD PATH TOKEN [BODY_FILE]: prints the HTTP status; the body goes to $T/body
code() {
    local args=(-s -o "$T/body" -w '%{http_code}' -X "$1")
    [ -n "$3" ] && args+=(-H "Authorization: Bearer $3")
    [ -n "${4:-}" ] && args+=(--data-binary "@$4")
    curl "${args[@]}" "$URL$2"
}
snapshot() { "$S" query --topology "$TOPO" | sed -n '/^{/,$p'; }
store_sum() { cat "$T"/broker.db* 2>/dev/null | sha256sum; }

start || exit 1
expect "healthz needs no token" test "$(code GET /healthz '')" = 200
expect "--help names the config" bash -c "'$B' --help | grep -q -- '--config FILE'"

# --- 1. clusters publish; readers read the merged federation ----------------------------------
printf 'allocate train oregon:or-gpu[001-004]=8\ndrain or-gpu005 bad DIMM\nsnapshot\n' | snapshot >"$T/oregon.json"
printf 'allocate train ohio:oh-gpu001=8\nsnapshot\n' | snapshot >"$T/ohio.json"
expect "oregon publishes its inventory" test "$(code PUT /v1/clusters/oregon/inventory tok-oregon "$T/oregon.json")" = 200
expect "ohio publishes its inventory" test "$(code PUT /v1/clusters/ohio/inventory tok-ohio "$T/ohio.json")" = 200
expect "a reader lists the clusters" test "$(code GET /v1/clusters tok-tools)" = 200
expect "oregon: 128 GPUs, 4 nodes busy and 1 drained leave 88 free" grep -q '"free_gpus":88,"gpus":128,"name":"oregon"' "$T/body"
expect "ohio: 24 of 32 free" grep -q '"free_gpus":24,"gpus":32,"name":"ohio"' "$T/body"
expect "virginia has not published" grep -q '"name":"virginia","nodes":8,"published":false' "$T/body"
expect "the federation view is served" test "$(code GET /v1/federation tok-tools)" = 200
expect "job names carry their cluster" grep -q '"job":"oregon:train"' "$T/body"
expect "both clusters' jobs are in it" grep -q '"job":"ohio:train"' "$T/body"
# Conditional and delta reads: a reader's unchanged copy costs a 304; a changed one, the deltas.
etag() { curl -s -D - -o /dev/null -H "Authorization: Bearer tok-tools" "$URL/v1/federation" | tr -d '\r' | sed -n 's/^[Ee][Tt][Aa][Gg]: //p'; }
if_none_match() { rm -f "$T/body"; curl -s -o "$T/body" -w '%{http_code}' -H "Authorization: Bearer tok-tools" -H "If-None-Match: $1" "$URL/v1/federation"; }
tag1=$(etag)
epoch1=$(grep -o '"epoch":[0-9]*' "$T/body" | head -1 | cut -d: -f2)
expect "the view has an ETag" test -n "$tag1"
expect "an unchanged view answers 304 to If-None-Match, with no body" test "$(if_none_match "$tag1")" = 304 -a ! -s "$T/body"
expect "nothing changed: the delta read is empty" bash -c "[ \"\$(curl -s -H 'Authorization: Bearer tok-tools' '$URL/v1/federation/deltas?since=$epoch1' | grep -o '\"deltas\":\\[\\]')\" = '\"deltas\":[]' ]"
echo '{"deltas": [{"delta": "job_released", "job": "train"}]}' >"$T/release.json"
expect "oregon sends a delta" test "$(code POST /v1/clusters/oregon/deltas tok-oregon "$T/release.json")" = 200
expect "a changed view answers 200 to the old ETag" test "$(if_none_match "$tag1")" = 200
expect "the delta read says what changed, in the federation's names" \
    test "$(code GET "/v1/federation/deltas?since=$epoch1" tok-tools)" = 200 -a "$(grep -o '"job":"oregon:train"' "$T/body")" = '"job":"oregon:train"'
expect "... from the epoch asked to the broker's" grep -q "\"epoch\":$((epoch1 + 1)),\"since\":$epoch1," "$T/body"
expect "a delta read from an epoch the broker has not reached: 410" test "$(code GET "/v1/federation/deltas?since=$((epoch1 + 100))" tok-tools)" = 410
expect "a delta read without a number: 400 naming since" test "$(code GET '/v1/federation/deltas?since=yesterday' tok-tools)" = 400 -a -n "$(grep -o since "$T/body")"
code GET /v1/clusters tok-tools >/dev/null
expect "the released GPUs are free again (120 of 128)" grep -q '"free_gpus":120,"gpus":128,"name":"oregon"' "$T/body"
expect "metrics count requests by route and status" bash -c "[ \$(curl -s -H 'Authorization: Bearer tok-tools' $URL/metrics | grep -c 'spiderflow_broker_requests_total{route=\"/v1/clusters/{name}/inventory\",status=\"200\"} 2') = 1 ]"
expect "metrics give each cluster's update age" bash -c "curl -s -H 'Authorization: Bearer tok-tools' $URL/metrics | grep -q 'spiderflow_broker_update_age_seconds{cluster=\"ohio\"}'"

# --- 1b. the command line reads the live federation through the libcurl client ---------------
echo tok-tools >"$T/reader.token"
chmod 600 "$T/reader.token"
"$S" federation --broker "$URL" --token-file "$T/reader.token" >"$T/federation.txt" 2>&1
expect "spiderflow federation: oregon's free GPUs and drained node" grep -qE '^oregon +[0-9]+ s ago +120 H100-SXM +1 drained, 0 down' "$T/federation.txt"
expect "spiderflow federation: virginia never published" grep -qE '^virginia +never' "$T/federation.txt"
# A live agent on a quiet cluster publishes nothing new, but calls every cycle: it is heard from.
# ohio publishes once and is silent after; oregon's agent only reads the federation later.
printf 'allocate train ohio:oh-gpu001=8\nsnapshot\n' | snapshot >"$T/ohio.json"
code PUT /v1/clusters/ohio/inventory tok-ohio "$T/ohio.json" >/dev/null
sleep 3
code GET /v1/federation tok-oregon >/dev/null
"$S" federation --broker "$URL" --token-file "$T/reader.token" --format json >"$T/heard.json" 2>&1
heard=$(python3 -c 'import json,sys; c={x["name"]: x for x in json.load(open(sys.argv[1]))["clusters"]}; print(c["oregon"]["heard_age_s"], c["oregon"]["age_s"], c["ohio"]["heard_age_s"])' "$T/heard.json" 2>&1)
read -r oregon_heard oregon_age ohio_heard <<<"$heard"
expect "spiderflow federation: oregon, which read the federation just now, was heard from after its last change (heard, changed, ohio heard: $heard)" \
    test "${oregon_heard:-x}" -lt "${oregon_age:-0}" -a "${oregon_heard:-x}" -lt "${ohio_heard:-0}"
"$S" plan --broker "$URL" --token-file "$T/reader.token" --model llama3-8b --global-batch 256 --gpus 32 --allow ohio \
    --format text --no-timing >"$T/plan.txt" 2>"$T/plan.err"
expect "plan --broker: ohio has 24 free GPUs, so 32 there is refused naming them" grep -q 'the allowed clusters have 24' "$T/plan.err"
"$S" plan --broker "$URL" --token-file "$T/reader.token" --model llama3-8b --global-batch 256 --gpus 16 --allow ohio \
    --format json >"$T/plan.json" 2>/dev/null
expect "plan --broker: 16 GPUs fit ohio's free ones" grep -q '"world_size": 16' "$T/plan.json"
chmod 644 "$T/reader.token"
expect "a token file others can read is refused" bash -c "! '$S' federation --broker '$URL' --token-file '$T/reader.token' 2>&1 | grep -q oregon"
chmod 600 "$T/reader.token"

# --- 1c. one broker per SQLite file, and one per address ----------------------------------------
# second_broker CONFIG NAME: runs another broker on CONFIG (bounded: a second broker that starts
# would serve forever) and leaves its exit status in $T/NAME.rc and its words in $T/NAME.err.
second_broker() {
    timeout 10 "$B" --config "$1" >"$T/$2.err" 2>&1
    echo $? >"$T/$2.rc"
}
second_broker "$T/brokerd.conf" same
expect "a second broker on the same config exits 1 ($(cat "$T/same.rc"))" test "$(cat "$T/same.rc")" = 1
expect "it names the first broker's pid and address" grep -q "in use by another broker (.*:$PORT pid $PID" "$T/same.err"
sed "s/^port = .*/port = $(free_port)/" "$T/brokerd.conf" >"$T/other_port.conf"
second_broker "$T/other_port.conf" other_port
expect "a second broker on the same database but another port exits 1 ($(cat "$T/other_port.rc"))" test "$(cat "$T/other_port.rc")" = 1
expect "it names the first broker too" grep -q "pid $PID" "$T/other_port.err"
sed "s#^db = .*#db = $T/other.db#" "$T/brokerd.conf" >"$T/other_db.conf"
second_broker "$T/other_db.conf" other_db
expect "a second broker on another database but the same address exits 1 ($(cat "$T/other_db.rc"))" test "$(cat "$T/other_db.rc")" = 1
expect "it says the address is taken" grep -q "cannot listen on 127.0.0.1:$PORT" "$T/other_db.err"
expect "the first broker still answers" test "$(code GET /healthz '')" = 200

# --- 2. refused requests change nothing ------------------------------------------------------
before=$(store_sum)
head -c 70000 /dev/zero | tr '\0' ' ' >"$T/big.json"
echo '{"deltas": [], "extra": 1}' >"$T/unknown_key.json"
echo '{"deltas": [{"delta": "job_released", "job": "no-such-job"}]}' >"$T/bad_delta.json"
printf 'allocate x ohio:oh-gpu002=8\nsnapshot\n' | snapshot >"$T/foreign.json"
expect "no token: 401" test "$(code PUT /v1/clusters/oregon/inventory '' "$T/oregon.json")" = 401
expect "a wrong token: 401" test "$(code PUT /v1/clusters/oregon/inventory not-a-token "$T/oregon.json")" = 401
expect "ohio's token on oregon: 403" test "$(code PUT /v1/clusters/oregon/inventory tok-ohio "$T/oregon.json")" = 403
expect "a reader's token cannot write: 403" test "$(code POST /v1/clusters/oregon/deltas tok-tools "$T/release.json")" = 403
expect "an unknown cluster: 404" test "$(code PUT /v1/clusters/mars/inventory tok-oregon "$T/oregon.json")" = 404
expect "oversized: 413" test "$(code PUT /v1/clusters/oregon/inventory tok-oregon "$T/big.json")" = 413
expect "an unknown key: 400" test "$(code POST /v1/clusters/oregon/deltas tok-oregon "$T/unknown_key.json")" = 400
expect "the 400 names the key" grep -q 'extra: unknown key' "$T/body"
expect "a delta that does not apply: 400" test "$(code POST /v1/clusters/oregon/deltas tok-oregon "$T/bad_delta.json")" = 400
expect "another cluster's nodes in oregon's inventory: 400" test "$(code PUT /v1/clusters/oregon/inventory tok-oregon "$T/foreign.json")" = 400
expect "malformed JSON: 400" test "$(code PUT /v1/clusters/oregon/inventory tok-oregon /dev/null)" = 400
expect "the store is byte-identical after every refused request" test "$(store_sum)" = "$before"

# --- 3. restart: the state comes back from the store ------------------------------------------
code GET /v1/federation tok-tools >/dev/null
grep -o '"epoch":[0-9]*' "$T/body" | head -1 >"$T/epoch.before"
stop
start || exit 1
code GET /v1/federation tok-tools >/dev/null
expect "after a restart: the same epoch" test "$(grep -o '"epoch":[0-9]*' "$T/body" | head -1)" = "$(cat "$T/epoch.before")"
expect "after a restart: ohio's job is there" grep -q '"job":"ohio:train"' "$T/body"
expect "after a restart: the old ETag gets the whole view" test "$(if_none_match "$tag1")" = 200
expect "after a restart: a delta read from before it is 410 (read the whole view)" test "$(code GET "/v1/federation/deltas?since=$epoch1" tok-tools)" = 410
# A new federation topology (ohio's nodes changed, so another hash): stored parts no longer fit it.
stop
python3 -c 'import json,sys; t=json.load(open(sys.argv[1])); t["clusters"][2]["nodes"][0].update(gpus=4, nvlink_domain=4); json.dump(t, open(sys.argv[2], "w"))' "$TOPO" "$T/changed.json"
sed -i "s#^topology = .*#topology = $T/changed.json#" "$T/brokerd.conf"
start || exit 1
expect "a changed topology: the broker starts and says which parts it dropped" grep -q "stored part of cluster 'oregon' dropped" "$T/brokerd.log"
expect "a changed topology: dropped clusters show as unpublished" bash -c "[ \$(curl -s -H 'Authorization: Bearer tok-tools' $URL/v1/clusters | grep -o '\"published\":false' | wc -l) = 4 ]"
stop
sed -i "s#^topology = .*#topology = $TOPO#" "$T/brokerd.conf"
start || exit 1

# --- 4. kill -9 during a burst: every acknowledged update is there, none half-applied --------
# Each request allocates two jobs (cores only, so the nodes never fill): both or neither.
: >"$T/acked"
(
    for i in $(seq 1 400); do
        printf '{"deltas": [{"delta": "job_allocated", "job": "a%d", "start": 0, "end": null, "nodes": [{"cluster": "oregon", "node": "or-gpu%03d", "gpus": 0, "cores": 1}]}, {"delta": "job_allocated", "job": "b%d", "start": 0, "end": null, "nodes": [{"cluster": "oregon", "node": "or-gpu%03d", "gpus": 0, "cores": 1}]}]}' \
            "$i" $((9 + i % 8)) "$i" $((9 + i % 8)) >"$T/burst.json"
        [ "$(code POST /v1/clusters/oregon/deltas tok-oregon "$T/burst.json")" = 200 ] && echo "$i" >>"$T/acked"
    done
) &
burst=$!
sleep 1
kill -9 "$PID"
wait "$PID" 2>/dev/null
PID=
wait "$burst" 2>/dev/null
acked=$(wc -l <"$T/acked")
start || exit 1
code GET /v1/federation tok-tools >/dev/null
read -r missing half < <(burst_outcome 400 "$T/body" "$T/acked")
expect "kill -9 came in the middle of the burst ($acked of 400 acknowledged)" test "$acked" -gt 0 -a "$acked" -lt 400
expect "every acknowledged update survived kill -9 ($missing missing)" test "$missing" = 0
expect "no update was half-applied ($half halves)" test "$half" = 0

stop

# --- 5. TLS: with a certificate and key in the config, the API is HTTPS only ----------------
if command -v openssl >/dev/null; then
    openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
        -keyout "$T/key.pem" -out "$T/cert.pem" >/dev/null 2>&1
    printf 'tls_cert = %s\ntls_key = %s\n' "$T/cert.pem" "$T/key.pem" >>"$T/brokerd.conf"
    URL=https://127.0.0.1:$PORT
    "$B" --config "$T/brokerd.conf" >>"$T/brokerd.log" 2>&1 &
    PID=$!
    for _ in $(seq 50); do curl -sf --cacert "$T/cert.pem" "$URL/healthz" >/dev/null && break; sleep 0.1; done
    expect "TLS: healthz over HTTPS with the site's CA" curl -sf -o /dev/null --cacert "$T/cert.pem" "$URL/healthz"
    expect "TLS: an authenticated read over HTTPS" test "$(curl -s -o /dev/null -w '%{http_code}' --cacert "$T/cert.pem" \
        -H 'Authorization: Bearer tok-tools' "$URL/v1/clusters")" = 200
    expect "TLS: plain HTTP is not served" bash -c "! curl -sf http://127.0.0.1:$PORT/healthz"
    expect "TLS: a client that does not trust the certificate is refused" bash -c "! curl -sf $URL/healthz"
    stop
else
    echo "# TLS checks skipped: openssl not installed"
fi

if [ $FAILS -ne 0 ]; then
    echo "$FAILS check(s) failed; brokerd log:" >&2
    cat "$T/brokerd.log" >&2
    exit 1
fi
exit 0
