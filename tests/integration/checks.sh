#!/bin/bash
# TAP-style checks shared by the integration tests. Source it, then
#   expect "what should hold" COMMAND...      # prints "ok - ..." or "not ok - ..." and counts
# and end with [ "$FAILS" -eq 0 ].
FAILS=0
ok() { echo "ok - $1"; }
not_ok() { echo "not ok - $1"; FAILS=$((FAILS + 1)); }
expect() { local name=$1; shift; if "$@"; then ok "$name"; else not_ok "$name"; fi; }
# A TCP port free on loopback now.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# free_port_pair: a port P, P+1 free too, below the kernel's ephemeral range: a test that holds
# them by number for minutes (the link probe's iperf3 and RTT ports, bound anew by every serve job)
# must not meet another test's outgoing connection that took one of them meanwhile.
free_port_pair() {
    python3 -c '
import random, socket
low = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
for _ in range(200):
    p = random.randrange(10000, low - 2)
    try:
        for q in (p, p + 1):
            s = socket.socket(); s.bind(("", q)); s.close()
    except OSError:
        continue
    print(p); break'
}

# brokerd_conf DIR PORT TOPOLOGY: the brokerd.conf lines every test broker starts from (loopback,
# its SQLite store and token table under DIR); the caller appends what it tests.
brokerd_conf() {
    printf 'listen = 127.0.0.1\nport = %s\ndb = %s/broker.db\ntopology = %s\ntokens = %s/tokens\n' "$2" "$1" "$3" "$1"
}

# burst_outcome N BODY ACKED: "MISSING HALVES" for a burst of N update pairs (jobs oregon:aI and
# oregon:bI in one request each) read back in BODY: pairs whose number ACKED lists but are gone,
# and pairs only half there.
burst_outcome() {
    local i a b missing=0 half=0
    for i in $(seq 1 "$1"); do
        a=0; b=0
        grep -q "\"job\":\"oregon:a$i\"" "$2" && a=1
        grep -q "\"job\":\"oregon:b$i\"" "$2" && b=1
        [ $a != $b ] && half=$((half + 1))
        grep -qx "$i" "$3" && [ $a = 0 ] && missing=$((missing + 1))
    done
    echo "$missing $half"
}

# sf_port_block: prints the first of 50 consecutive loopback ports that this test now owns, for
# daemons that need fixed ports in their config (slurmctld, slurmd). Blocks lie below the kernel's
# ephemeral range, so no outgoing connection can take one; a block is claimed by mkdir (atomic)
# and owned by this shell's PID, so tests running side by side (make -j2 check) never share one,
# and a block whose owner died is taken back. sf_port_block_release gives this test's back.
SF_PORT_LOCKS=${TMPDIR:-/tmp}/spiderflow-it-ports
sf_port_block() {
    local first_block=200 blocks=450 size=50 i k base
    mkdir -p "$SF_PORT_LOCKS"
    for ((i = 0; i < blocks; i++)); do
        k=$(((first_block + ($$ + i * 7) % blocks)))
        base=$((k * size))
        if ! mkdir "$SF_PORT_LOCKS/$k" 2>/dev/null; then
            local owner
            owner=$(cat "$SF_PORT_LOCKS/$k/owner" 2>/dev/null)
            [ -n "$owner" ] && kill -0 "$owner" 2>/dev/null && continue
            [ -n "$owner" ] || continue   # being claimed right now
            rm -rf "$SF_PORT_LOCKS/$k"
            mkdir "$SF_PORT_LOCKS/$k" 2>/dev/null || continue
        fi
        echo $$ >"$SF_PORT_LOCKS/$k/owner"
        if python3 -c "
import socket, sys
for p in range($base, $base + $size):
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try: s.bind(('127.0.0.1', p))
    except OSError: sys.exit(1)
    finally: s.close()" 2>/dev/null; then
            echo "$base"
            return 0
        fi
        rm -rf "$SF_PORT_LOCKS/$k"   # something else listens there: leave that block alone
    done
    echo "spiderflow-it: no free block of $size ports below the ephemeral range" >&2
    return 1
}
sf_port_block_release() {
    local d
    for d in "$SF_PORT_LOCKS"/*; do
        [ "$(cat "$d/owner" 2>/dev/null)" = "$$" ] && rm -rf "$d"
    done
    return 0
}
