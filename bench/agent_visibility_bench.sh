#!/bin/bash
# How soon the federation sees a job start: a real localhost Slurm cluster
# (tests/integration/slurm_cluster.sh), spiderflow-brokerd and spiderflow-agent at its default
# interval (5 s). Jobs are submitted at spread moments (every 1.7 s, so their starts fall at every
# phase of the agent's cycle); a poller notes when squeue first shows each one RUNNING and when
# the broker's GET /v1/federation first holds it. Prints p50/p99/max of the difference against
# the target: p99 under 10 s at the default interval.
# Usage (as root, from the build dir): bench/agent_visibility_bench.sh [JOBS] [INTERVAL_S]
set -u
JOBS=${1:-30}
INTERVAL=${2:-5}
case "$JOBS$INTERVAL" in *[!0-9.]*) echo "usage: $0 [JOBS] [INTERVAL_S]" >&2; exit 2 ;; esac
SRC=$(cd "$(dirname "$0")/.." && pwd)
export SF_BUILDDIR=${SF_BUILDDIR:-$(pwd)}
. "$SRC/tests/integration/slurm_cluster.sh"
sf_cluster_can_run || exit 77
for b in spiderflow-brokerd spiderflow-agent; do
    [ -x "$SF_BUILDDIR/$b" ] || { echo "agent_visibility_bench: build ./$b first" >&2; exit 1; }
done
sf_cluster_start || exit 1
BROKER=
AGENT=
trap 'kill $AGENT $BROKER 2>/dev/null; wait $AGENT $BROKER 2>/dev/null; sf_cluster_stop' EXIT

PORT=$(free_port)
CLUSTER=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["clusters"][0]["name"])' "$SF_TMP/topology.json")
brokerd_conf "$SF_TMP" "$PORT" "$SF_TMP/topology.json" >"$SF_TMP/brokerd.conf"
{
    echo "cluster $CLUSTER $(echo tok-c | "$SF_BUILDDIR/spiderflow-brokerd" --hash-token)"
    echo "reader bench $(echo tok-r | "$SF_BUILDDIR/spiderflow-brokerd" --hash-token)"
} >"$SF_TMP/tokens"
echo tok-c >"$SF_TMP/agent.token"
chmod 600 "$SF_TMP/agent.token"
cat >"$SF_TMP/agent.conf" <<CONF
broker = http://127.0.0.1:$PORT
token_file = $SF_TMP/agent.token
spiderflow_conf = $SF_TMP/spiderflow.conf
interval = $INTERVAL
CONF
"$SF_BUILDDIR/spiderflow-brokerd" --config "$SF_TMP/brokerd.conf" >"$SF_TMP/brokerd.log" 2>&1 &
BROKER=$!
"$SF_BUILDDIR/spiderflow-agent" --config "$SF_TMP/agent.conf" >"$SF_TMP/agent.log" 2>&1 &
AGENT=$!
sleep 2

echo "agent_visibility_bench: $JOBS jobs, agent interval $INTERVAL s, broker on 127.0.0.1:$PORT"
python3 - "$JOBS" "$INTERVAL" "http://127.0.0.1:$PORT" "$CLUSTER" <<'PY'
import json, subprocess, sys, time, urllib.request

jobs, interval, url, cluster = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3], sys.argv[4]
submit_every = 1.7
req = urllib.request.Request(url + "/v1/federation", headers={"Authorization": "Bearer tok-r"})

def running_now():
    out = subprocess.run(["squeue", "-h", "-t", "R", "-o", "%i"], capture_output=True, text=True).stdout
    return set(out.split())

def in_broker():
    state = json.load(urllib.request.urlopen(req, timeout=5))["state"]
    return {a["job"].split(":", 1)[1] for a in state.get("jobs", [])}

submitted, run_at, seen_at = [], {}, {}
next_submit = time.monotonic()
deadline = time.monotonic() + jobs * submit_every + 6 * interval + 30
while time.monotonic() < deadline:
    now = time.monotonic()
    if len(submitted) < jobs and now >= next_submit:
        jid = subprocess.run(["sbatch", "--parsable", "-n1", "--gpus=1", "-o", "/dev/null", "--wrap", "sleep 600"],
                             capture_output=True, text=True).stdout.strip()
        if jid:
            submitted.append(jid)
        next_submit += submit_every
    for j in running_now():
        run_at.setdefault(j, time.monotonic())
    for j in in_broker():
        seen_at.setdefault(j, time.monotonic())
    if len(submitted) == jobs and all(j in seen_at and j in run_at for j in submitted):
        break
    time.sleep(0.1)
subprocess.run(["scancel"] + submitted)

lags = sorted(max(0.0, seen_at[j] - run_at[j]) for j in submitted if j in seen_at and j in run_at)
missing = [j for j in submitted if j not in seen_at or j not in run_at]
if not lags:
    print("agent_visibility_bench: no job was both seen running and seen in the broker")
    sys.exit(1)
def pct(p):
    return lags[min(len(lags) - 1, int(round(p / 100 * (len(lags) - 1))))]
target = 10.0
p50, p99 = pct(50), pct(99)
print(f"jobs measured            {len(lags)} of {jobs}" + (f" (never seen: {' '.join(missing)})" if missing else ""))
print(f"start -> broker p50      {p50:6.2f} s")
print(f"start -> broker p99      {p99:6.2f} s   vs target {target:.0f} s: {p99 / target:.2f}x of the budget")
print(f"start -> broker max      {lags[-1]:6.2f} s   (agent interval {interval:g} s)")
print("verdict: " + ("met" if p99 < target and not missing else "NOT met") + f" (p99 {p99:.2f} s < {target:.0f} s)")
PY
