#!/bin/bash
# Integration: metrics in Prometheus' form from live daemons. Two real Slurm clusters (alpha,
# beta: one node each, federation.sh), the broker and an agent each; alpha's agent writes its
# node_exporter textfile (agent.conf metrics_textfile) and publishes a measured alpha-beta link.
# `promtool check metrics` (Debian's prometheus package) passes on the textfile and on the
# broker's /metrics; each carries the figures the issue names under the cluster and link labels;
# every name contrib/grafana/spiderflow.json queries is one the two exporters export. Exits 77
# without promtool (or where the daemons cannot run).
set -u
command -v promtool >/dev/null || { echo "SKIP: promtool not installed (Debian's prometheus, contrib/scripts/install-deps.sh)"; exit 77; }
. "$(dirname "$0")/federation.sh"
fed_init alpha:an1 beta:bn1
A=$SF_TMP/alpha
mkdir -p "$A/textfile"
PROM=$A/textfile/spiderflow.prom
NOW=$(date +%s)
echo "{\"delta\":\"link_measured\",\"a\":\"beta\",\"b\":\"alpha\",\"gbps\":1.4,\"latency_ms\":21,\"timestamp\":$NOW,\"source\":\"iperf3 probe\"}" >"$A/links.jsonl"
printf 'links_file = %s\nmetrics_textfile = %s\n' "$A/links.jsonl" "$PROM" >>"$A/agent.conf"
fed_start

published() { grep -q '^spiderflow_agent_last_publish_success_timestamp_seconds{cluster="alpha"} ' "$PROM" 2>/dev/null; }
expect "alpha's agent writes its textfile, with its last successful publish" within 20 published
parts_seen() { grep -q '^spiderflow_agent_parts{cluster="alpha",state="running"} 0$' "$PROM"; }
expect "... and its cross-site parts by state, once slurmctld listed them" within 10 parts_seen
cp "$PROM" "$SF_TMP/agent.prom"
curl -sf -H "Authorization: Bearer tok-tools" "$URL/metrics" >"$SF_TMP/broker.prom"

# --- promtool ----------------------------------------------------------------------------------
for f in agent broker; do
    promtool check metrics <"$SF_TMP/$f.prom" >"$SF_TMP/$f.promtool" 2>&1
    rc=$?
    expect "promtool check metrics passes on the $f's metrics (exit $rc, $(wc -l <"$SF_TMP/$f.promtool") findings)" \
        test "$rc" = 0 -a ! -s "$SF_TMP/$f.promtool"
    cat "$SF_TMP/$f.promtool"
done

# --- the figures, under their labels ----------------------------------------------------------
has() { grep -q "^$2" "$SF_TMP/$1.prom"; }
expect "agent: publish latency histogram" has agent 'spiderflow_agent_publish_duration_seconds_count{cluster="alpha"} [1-9]'
expect "agent: no publish failed" has agent 'spiderflow_agent_publish_failures_total{cluster="alpha"} 0$'
expect "agent: the measured link under the topology's name, its RTT twice the latency" \
    has agent 'spiderflow_agent_link_measured_rtt_seconds{cluster="alpha",link="alpha-beta"} 0.042$'
expect "agent: ... its bandwidth in bytes per second" \
    has agent 'spiderflow_agent_link_measured_bandwidth_bytes_per_second{cluster="alpha",link="alpha-beta"} 175000000$'
expect "agent: ... when it was measured" has agent "spiderflow_agent_link_measured_timestamp_seconds{cluster=\"alpha\",link=\"alpha-beta\"} $NOW\$"
expect "agent: parts Slurm requeued, a counter" has agent 'spiderflow_agent_parts_requeued_by_slurm_total{cluster="alpha"} 0$'
expect "broker: each cluster's free GPUs" has broker 'spiderflow_broker_cluster_free_gpus{cluster="beta"} 8$'
expect "broker: the link's declared and measured figures" bash -c \
    "grep -q '^spiderflow_broker_link_declared_bandwidth_bytes_per_second{link=\"alpha-beta\"} 1250000000$' '$SF_TMP/broker.prom' &&
     grep -q '^spiderflow_broker_link_measured_bandwidth_bytes_per_second{link=\"alpha-beta\"} 175000000$' '$SF_TMP/broker.prom'"
expect "broker: the measurement's age" has broker 'spiderflow_broker_link_measurement_age_seconds{link="alpha-beta"} [0-9]'
expect "broker: cross-site jobs by state, every state named" has broker 'spiderflow_broker_cross_site_jobs{state="running"} 0$'

# --- the textfile: replaced whole, readable by node_exporter's user ----------------------------
expect "no temporary file left beside the textfile" test "$(ls "$A/textfile")" = spiderflow.prom
expect "the textfile is world-readable" test "$(stat -c %a "$PROM")" = 644

# --- the dashboard asks only for exported names ------------------------------------------------
python3 - "$SF_SRCDIR/contrib/grafana/spiderflow.json" "$SF_TMP/agent.prom" "$SF_TMP/broker.prom" >"$SF_TMP/dashboard.check" <<'PY'
import json, re, sys
def queries(j):
    if isinstance(j, dict):
        for k, v in j.items():
            if k in ("expr", "query", "definition") and isinstance(v, str):
                yield v
            else:
                yield from queries(v)
    elif isinstance(j, list):
        for v in j:
            yield from queries(v)
exported = set()
for path in sys.argv[2:]:
    for line in open(path):
        if line.startswith("# TYPE "):
            exported.add(line.split()[2])
        elif line[:1] not in ("#", "\n", ""):
            exported.add(re.split(r"[{ ]", line, 1)[0])
asked = {n for q in queries(json.load(open(sys.argv[1]))) for n in re.findall(r"spiderflow_[A-Za-z0-9_:]*", q)}
print(len(asked), "names asked;", "missing:", " ".join(sorted(asked - exported)) or "none")
sys.exit(1 if asked - exported or not asked else 0)
PY
rc=$?
expect "every name the Grafana dashboard queries is exported: $(cat "$SF_TMP/dashboard.check")" test $rc = 0

if [ "$FAILS" -ne 0 ]; then
    echo "$FAILS check(s) failed" >&2
    for f in agent broker; do echo "--- $f:"; cat "$SF_TMP/$f.prom"; done >&2
    tail -n 20 "$A/agent.log" >&2
    exit 1
fi
exit 0
