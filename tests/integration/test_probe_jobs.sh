#!/bin/bash
# Integration: link probes coordinated through the broker, as short Slurm jobs on compute nodes.
# Two real Slurm clusters on localhost (alpha and beta, link alpha-beta: alpha measures), the
# broker and an agent per cluster:
#   1. `spiderflow probe now --link alpha-beta` with alpha's token: beta's agent starts a serve job,
#      alpha's a measure job to beta's node, and the figure is published as alpha's measurement:
#      `spiderflow federation` shows it beside the declared one, and a full snapshot (the agent
#      restarted with SIGHUP) keeps it;
#   2. alpha's agent with probe_interval asks for the probe itself;
#   3. refused with the reason: a reader's token, a link with one cluster twice, a cluster the
#      topology does not have; a probe whose serve job cannot run fails, naming beta's job.
# Skipped (77) where the daemons cannot run or iperf3 is missing.
. "$(dirname "$0")/federation.sh"
command -v iperf3 >/dev/null || { echo "SKIP: iperf3 not installed"; exit 77; }
fed_init alpha:an1,an2 beta:bn1,bn2
echo "probe_port = $(free_port_pair)" >>"$SF_TMP/brokerd.conf"
for c in alpha beta; do echo "probe_command = $SF_BUILDDIR/spiderflow" >>"$SF_TMP/$c/agent.conf"; done
fed_start
S=$SF_BUILDDIR/spiderflow
published() { [ "$(curl -sf -H 'Authorization: Bearer tok-tools' "$URL/v1/clusters" | python3 -c 'import json,sys; print(sum(1 for c in json.load(sys.stdin)["clusters"] if c["published"]))')" = 2 ]; }
expect "both agents publish their cluster" within 30 published

# --- 1. on demand ------------------------------------------------------------------------------
t0=$(date +%s.%N)
"$S" probe now --link alpha-beta --broker "$URL" --token-file "$SF_TMP/alpha/agent.token" --wait 120 >"$SF_TMP/now.txt" 2>&1
rc=$?
took=$(python3 -c "print(round($(date +%s.%N) - $t0, 1))")
cat "$SF_TMP/now.txt"
expect "spiderflow probe now measures link alpha-beta through both agents' jobs (exit $rc, $took s)" \
    bash -c "[ $rc = 0 ] && grep -Eq '^alpha-beta: [0-9.]+ Gbps, RTT [0-9.]+ ms; published as alpha.s measurement' '$SF_TMP/now.txt'"
expect "... it says where beta served" grep -Eq "^  beta serves on [a-z0-9.]+; alpha measures" "$SF_TMP/now.txt"
measured() {
    "$S" federation --broker "$URL" --token-file "$SF_TMP/reader.token" >"$SF_TMP/fed.txt" 2>&1 &&
        grep -Eq "^alpha <-> beta +10 Gbps 20 ms +[0-9.]+ Gbps .* measured by spiderflow-probe" "$SF_TMP/fed.txt"
}
expect "spiderflow federation shows alpha's measured figure beside the declared one" within 15 measured
grep "alpha <-> beta" "$SF_TMP/fed.txt"
kill -HUP "$AGENT_alpha"
sleep 3
expect "... and alpha's next full snapshot keeps it" measured
expect "the probe jobs ran on the compute nodes of both clusters" \
    bash -c "on() { SLURM_CONF=$SF_TMP/\$1/slurm.conf scontrol -o show job 2>/dev/null; }; on beta | grep -q 'JobName=spiderflow-probe-p[0-9]*-serve' && on alpha | grep -q 'JobName=spiderflow-probe-p[0-9]*-measure'"
echo "# probe on demand: $took s from spiderflow probe now to the published figure (serve job, measure job of 5 s, agents every 1 s)"

# --- 2. on alpha's schedule ---------------------------------------------------------------------
echo "probe_interval = 3600" >>"$SF_TMP/alpha/agent.conf"
restart_agent alpha
scheduled() { curl -s -H 'Authorization: Bearer tok-tools' "$URL/v1/probes" | python3 -c "
import json, sys
ps = [p for p in json.load(sys.stdin)['probes'] if p['requested_by'] == 'alpha' and p['state'] == 'done']
sys.exit(0 if len(ps) >= 2 else 1)"; }
expect "alpha's agent with probe_interval asks for the probe itself, and it is done" within 90 scheduled
expect "... its log says so" grep -q "asked the broker for a probe of link alpha-beta (probe_interval)" "$SF_TMP/alpha/agent.log"

# --- 3. refusals ---------------------------------------------------------------------------------
status_of() { curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $1" -X POST -d "$2" "$URL/v1/probes"; }
expect "a reader's token may not start a probe (403)" test "$(status_of tok-tools '{"link": "alpha-beta"}')" = 403
expect "one cluster twice is refused (400)" test "$(status_of tok-alpha '{"link": "alpha-alpha"}')" = 400
expect "a cluster the topology lacks is refused (400)" test "$(status_of tok-alpha '{"link": "alpha-gamma"}')" = 400
"$S" probe now --link alpha-alpha --broker "$URL" --token-file "$SF_TMP/alpha/agent.token" >"$SF_TMP/bad.txt" 2>&1
expect "spiderflow probe now names a bad --link (exit $?)" grep -q "names one cluster twice" "$SF_TMP/bad.txt"
# beta's probe command does not exist: its serve job fails, and the probe says so.
sed -i "s|^probe_command = .*|probe_command = /nonexistent/spiderflow|" "$SF_TMP/beta/agent.conf"
restart_agent beta
"$S" probe now --link alpha-beta --broker "$URL" --token-file "$SF_TMP/alpha/agent.token" --wait 90 >"$SF_TMP/fail.txt" 2>&1
rc=$?
cat "$SF_TMP/fail.txt"
expect "a serve job that cannot run fails the probe, naming beta's job (exit $rc)" \
    bash -c "[ $rc = 3 ] && grep -q 'failed: beta: the serve job [0-9]* ended before it served' '$SF_TMP/fail.txt'"

expect "no agent crashed" bash -c "! grep -qi 'terminate\|abort\|segmentation' $SF_TMP/*/agent.log"
# probe_jobs_output: every probe job either cluster ran that did not complete, with its state, its
# reason and its own output (the node's /tmp file the agent named), so a failed check says why.
probe_jobs_output() {
    local c line out
    for c in alpha beta; do
        SLURM_CONF=$SF_TMP/$c/slurm.conf scontrol -o show job 2>/dev/null | grep 'JobName=spiderflow-probe-' |
            grep -v 'JobState=COMPLETED' | while read -r line; do
                out=$(grep -o 'StdOut=[^ ]*' <<<"$line" | cut -d= -f2)
                echo "--- $c: $(grep -oE '(JobId|JobName|JobState|Reason|ExitCode)=[^ ]*' <<<"$line" | tr '\n' ' ')"
                if [ -n "$out" ] && [ -r "$out" ]; then tail -20 "$out"; else echo "(no output file ${out:-named})"; fi
            done
    done
}
if [ "$FAILS" -ne 0 ]; then
    probe_jobs_output
    for c in alpha beta; do echo "--- $c agent log"; tail -15 "$SF_TMP/$c/agent.log"; done
    echo "--- broker log"; tail -15 "$SF_TMP/brokerd.log"
    curl -s -H 'Authorization: Bearer tok-tools' "$URL/v1/probes"
fi
echo "$FAILS failure(s)"
[ "$FAILS" -eq 0 ]
