#!/bin/bash
# One spiderflow-brokerd on loopback for the broker's integration tests, under a temporary
# directory and stopped by PID at exit. Source it with a name for the directory:
#   . one_broker.sh xjobs; echo "coalloc_lead = 2" >>"$T/brokerd.conf"; one_broker_tokens oregon ohio; start
# Sets B (the broker binary), TOPO (aws-4), T, PORT, URL and a base $T/brokerd.conf; exits 77
# without curl.
. "$(dirname "${BASH_SOURCE[0]}")/checks.sh"
B=$SF_BUILDDIR/spiderflow-brokerd
TOPO=$SF_SRCDIR/contrib/topologies/aws-4.json
command -v curl >/dev/null || { echo "SKIP: curl not installed"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/sf-$1.XXXXXX")
PID=
stop() { [ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null; PID=; }
trap 'stop; rm -rf "$T"' EXIT
PORT=$(free_port)
URL=http://127.0.0.1:$PORT
{ brokerd_conf "$T" "$PORT" "$TOPO"; echo "rate_limit = 10000"; } >"$T/brokerd.conf"

# one_broker_tokens CLUSTER...: cluster CLUSTER writes with token tok-CLUSTER; reader "tools"
# reads with tok-tools.
one_broker_tokens() {
    local c
    {
        for c in "$@"; do echo "cluster $c $(echo "tok-$c" | "$B" --hash-token)"; done
        echo "reader tools $(echo tok-tools | "$B" --hash-token)"
    } >"$T/tokens"
}

start() {
    "$B" --config "$T/brokerd.conf" >>"$T/brokerd.log" 2>&1 &
    PID=$!
    for _ in $(seq 50); do curl -sf "$URL/healthz" >/dev/null && return 0; sleep 0.1; done
    echo "brokerd did not start:"; cat "$T/brokerd.log"; return 1
}
