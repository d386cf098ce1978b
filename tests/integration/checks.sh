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
