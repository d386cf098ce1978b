#!/bin/bash
# Broker benchmark: spiderflow-brokerd on loopback, bounded, under a 64-cluster federation's
# steady load (issue figures: p50/p99 latency and CPU with 64 clusters publishing deltas every
# 5 s and 100 federation reads per second). Generates the federation topology, writes a token
# per cluster and one reader token, starts the broker (SQLite store) under a temporary
# directory, runs bench/broker_bench against it and stops the broker by PID. About 70 s.
# With --standby: two brokers over one MariaDB (started under the same directory, as the
# integration tests do), writes to the active one and reads spread over both (the standby
# follows the store); CPU and RSS are the active broker's, the standby's printed beside.
# Usage (from the build dir, or `make bench-broker BENCH_BROKER_ARGS='--seconds 20'`):
#   bench/broker_bench.sh [--clusters N] [--standby] [--seconds N] [broker_bench options...]
set -u
BUILD=${SF_BUILDDIR:-$(pwd)}
. "$(dirname "$0")/../tests/integration/checks.sh"   # free_port, brokerd_conf
. "$(dirname "$0")/federation_broker.sh"   # write_federation_tokens, bench_brokerd_conf, bench_start_broker
B=$BUILD/spiderflow-brokerd
S=$BUILD/spiderflow
BENCH=$BUILD/bench/broker_bench
CLUSTERS=64
STANDBY=
ARGS=()
while [ $# -gt 0 ]; do
    case $1 in
    --help | -h)
        sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'
        echo
        "$BENCH" --help | sed -n '/^  --seconds/,$p'
        echo "  --clusters N      clusters in the generated federation (default 64)"
        echo "  --standby         two brokers over one MariaDB, reads spread over both"
        exit 0 ;;
    --clusters) CLUSTERS=$2; shift 2 ;;
    --standby) STANDBY=1; shift ;;
    *) ARGS+=("$1"); shift ;;
    esac
done
for f in "$B" "$S" "$BENCH"; do
    [ -x "$f" ] || { echo "broker_bench: build $f first (make, from the build dir)" >&2; exit 1; }
done
command -v curl >/dev/null || { echo "broker_bench: needs curl to wait for the broker" >&2; exit 1; }

T=$(mktemp -d "${TMPDIR:-/tmp}/sf-brokerbench.XXXXXX")
PID=
PID2=
. "$(dirname "$0")/../tests/integration/mariadb.sh"
trap 'for p in $PID $PID2; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done; sf_mariadb_stop; rm -rf "$T"' EXIT
umask 077   # token files must be readable by their owner only, or the client refuses them

# The seed that submit_bench uses, so both benchmarks load the same kind of federation.
"$S" topo generate --clusters "$CLUSTERS" --seed 7 -o "$T/federation.json" 2>/dev/null || exit 1
write_federation_tokens "$B" "$T/federation.json" "$T" || exit 1

PORT=$(free_port)
URL=http://127.0.0.1:$PORT
bench_brokerd_conf "$T" "$PORT" "$T/federation.json" >"$T/brokerd.conf"
READS=()
if [ -n "$STANDBY" ]; then
    sf_mariadb_can_run || exit 77
    sf_mariadb_start "$T/db" || exit 1
    sf_mariadb_sql "CREATE DATABASE spiderflow; CREATE USER 'sfbroker'@'localhost' IDENTIFIED BY 'bench';
                    GRANT ALL ON spiderflow.* TO 'sfbroker'@'localhost'" || exit 1
    echo bench >"$T/db-password"
    sed -i "s#^db = .*#db = mysql://sfbroker@localhost/spiderflow?socket=$(sf_mariadb_socket)#" "$T/brokerd.conf"
    echo "db_password_file = $T/db-password" >>"$T/brokerd.conf"
    PORT2=$(free_port)
    sed "s/^port = .*/port = $PORT2/" "$T/brokerd.conf" >"$T/standby.conf"
fi
PID=$(bench_start_broker "$B" "$T/brokerd.conf" "$T/brokerd.log") || exit 1
if [ -n "$STANDBY" ]; then
    for _ in $(seq 100); do curl -sf "$URL/healthz" | grep -q active && break; sleep 0.1; done
    PID2=$(bench_start_broker "$B" "$T/standby.conf" "$T/standby.log") || exit 1
    READS=(--read-brokers "$URL,http://127.0.0.1:$PORT2" --standby-pid "$PID2")
fi

"$BENCH" --broker "$URL" --topology "$T/federation.json" --tokens "$T/tokens.d" --pid "$PID" "${READS[@]}" "${ARGS[@]}"
rc=$?
if [ $rc -ne 0 ] || grep -qv '^spiderflow: brokerd\( listening\|:.*clusters in\|: active\)' "$T/brokerd.log"; then
    echo "brokerd log:" >&2
    tail -n 20 "$T/brokerd.log" >&2
fi
exit $rc
