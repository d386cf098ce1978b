#!/bin/bash
# Integration: `spiderflow doctor` on a real site (one Slurm cluster on localhost with our
# plugins, spiderflow-brokerd and the cluster's agent, from federation.sh). It first finds
# nothing on the site as set up, then each of nine misconfigurations is planted alone and must
# be found with its fix and exit status 1, and the site is put right again before the next:
# a plugin missing from PluginDir, the plugstack line gone, job_submit dropped from slurm.conf
# (seen before and after `scontrol reconfigure`), a typo in spiderflow.conf, a topology that
# disagrees with slurm.conf, a world-readable token, an unreachable broker, an agent that
# stopped publishing, and JobRequeue=1 with on_failure = requeue.
. "$(dirname "$0")/federation.sh"
fed_init alpha:an1,an2
A=$SF_TMP/alpha
# Cross-site parts end, not requeue, when a node fails: what the doctor asks of a federated site.
echo "JobRequeue=0" >>"$A/slurm.conf"
fed_start

doctor() { "$SF_BUILDDIR/spiderflow" doctor --slurm-conf "$A/slurm.conf" --agent-conf "$A/agent.conf" "$@"; }
# clean: doctor passes every check (its output shown otherwise).
clean() {
    local out rc
    out=$(doctor 2>&1); rc=$?
    if [ "$rc" = 0 ] && [ "$(tail -1 <<<"$out")" = "all 12 checks passed" ]; then return 0; fi
    echo "$out" | sed 's/^/# /'; echo "# exit $rc"; return 1
}
# finds CHECK TEXT FIX: doctor exits 1 with a finding of CHECK whose line holds TEXT and whose
# fix holds FIX.
finds() {
    local out rc
    out=$(doctor 2>&1); rc=$?
    if [ "$rc" = 1 ] && grep -E "^(error|warning): $1: " <<<"$out" | grep -qF -- "$2" &&
        grep -A3 -E "^(error|warning): $1: " <<<"$out" | grep '^  fix: ' | grep -qF -- "$3"; then
        return 0
    fi
    echo "$out" | sed 's/^/# /'; echo "# exit $rc"; return 1
}
# set_key FILE KEY VALUE: slurm.conf's KEY=VALUE instead of what it says (VALUE empty: no line).
set_key() {
    sed -i "/^$2=/d" "$1"
    [ -n "$3" ] && echo "$2=$3" >>"$1"
    return 0
}
reconfigure() { on alpha scontrol reconfigure; }

clusters() { curl -sf -H "Authorization: Bearer tok-tools" "$URL/v1/clusters"; }
published() { clusters | grep -q '"name":"alpha"[^}]*"published":true'; }
expect "alpha's agent publishes" within 20 published

# --- 0. the site as set up ----------------------------------------------------------------------
expect "doctor finds nothing on the site as set up (all 12 checks passed, exit 0)" within 20 clean
doctor --verbose | sed "s/^/# /"   # the transcript, for the log
expect "... and says so in JSON (no errors, no warnings, nothing skipped)" \
    bash -c "'$SF_BUILDDIR/spiderflow' doctor --slurm-conf '$A/slurm.conf' --agent-conf '$A/agent.conf' --format json |
        python3 -c 'import json,sys; j=json.load(sys.stdin); sys.exit(0 if (j[\"errors\"], j[\"warnings\"], j[\"skipped\"], j[\"passed\"]) == (0, 0, 0, 12) else 1)'"

# --- 1. a plugin missing from PluginDir ---------------------------------------------------------
so=$SF_BUILDDIR/plugins/job_submit/.libs/job_submit_spiderflow.so
mv "$so" "$SF_TMP/job_submit_spiderflow.so.away"
restore_so() { [ -f "$SF_TMP/job_submit_spiderflow.so.away" ] && mv "$SF_TMP/job_submit_spiderflow.so.away" "$so"; return 0; }
trap 'restore_so; fed_stop_all' EXIT
expect "1. job_submit_spiderflow.so missing from PluginDir: found, with the install fix" \
    finds plugins "job_submit_spiderflow.so: not found (looked in PluginDir" "make install"
restore_so
expect "... put back: clean again" clean

# --- 2. the plugstack line gone -----------------------------------------------------------------
cp "$A/plugstack.conf" "$SF_TMP/plugstack.conf.good"
echo "# spiderflow removed by mistake" >"$A/plugstack.conf"
expect "2. plugstack.conf loads no spiderflow.so: found, with the line to add" \
    finds plugstack "no line loads spiderflow.so" "add \`optional spiderflow.so\`"
cp "$SF_TMP/plugstack.conf.good" "$A/plugstack.conf"
expect "... put back: clean again" clean

# --- 3. job_submit dropped from slurm.conf ------------------------------------------------------
cp "$A/slurm.conf" "$SF_TMP/slurm.conf.good"
set_key "$A/slurm.conf" JobSubmitPlugins ""
expect "3. JobSubmitPlugins edited but not in force: slurmctld runs with another value than the file" \
    finds slurm_conf "JobSubmitPlugins: slurmctld runs with 'spiderflow' but" "restart slurmctld"
reconfigure
expect "... after scontrol reconfigure: JobSubmitPlugins without spiderflow found, with the line to write" \
    within 10 finds job_submit "does not name spiderflow" "JobSubmitPlugins=spiderflow in slurm.conf"
cp "$SF_TMP/slurm.conf.good" "$A/slurm.conf"
reconfigure
expect "... put back and reconfigured: clean again" within 10 clean

# --- 4. a typo in spiderflow.conf ---------------------------------------------------------------
cp "$A/spiderflow.conf" "$SF_TMP/spiderflow.conf.good"
echo "cross_site_los = yes" >>"$A/spiderflow.conf"
expect "4. a typo in spiderflow.conf: found with the reader's own words (line, key, the key meant)" \
    finds spiderflow_conf "cross_site_los: unknown key; did you mean 'cross_site_loss'?" "fix that line"
cp "$SF_TMP/spiderflow.conf.good" "$A/spiderflow.conf"
expect "... put back: clean again" clean

# --- 5. the topology disagrees with slurm.conf --------------------------------------------------
python3 - "$SF_TMP/federation.json" "$A/other-topology.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
nodes = t["clusters"][0]["nodes"]
nodes.append(dict(nodes[-1], name="an3"))
json.dump(t, open(sys.argv[2], "w"), indent=1)
PY
sed -i "s|^topology = .*|topology = $A/other-topology.json|" "$A/spiderflow.conf"
expect "5. a topology with a node slurm.conf lacks: found (the node, the fix to add or remove it)" \
    finds topology "node an3: in $A/other-topology.json" "add NodeName=an3 to $A/slurm.conf"
cp "$SF_TMP/spiderflow.conf.good" "$A/spiderflow.conf"
expect "... put back: clean again" clean

# --- 6. a world-readable token ------------------------------------------------------------------
chmod 644 "$A/agent.token"
expect "6. the agent's token readable by others: found, with chmod 600 and a new token" \
    finds token "is readable by others" "chmod 600 $A/agent.token"
chmod 600 "$A/agent.token"
expect "... put back: clean again" within 15 clean

# --- 7. an unreachable broker -------------------------------------------------------------------
cp "$A/agent.conf" "$SF_TMP/agent.conf.good"
dead=$(free_port)
sed -i "s|^broker = .*|broker = http://127.0.0.1:$dead|" "$A/agent.conf"
expect "7. agent.conf names a broker that does not answer: found, with what to look at" \
    finds broker "http://127.0.0.1:$dead: does not answer" "start spiderflow-brokerd there, or fix broker ="
skipped_behind_broker() { doctor | grep -q "^skipped: agent: the broker does not answer"; }
expect "... the checks behind it say why they did not run" skipped_behind_broker
cp "$SF_TMP/agent.conf.good" "$A/agent.conf"
expect "... put back: clean again" clean

# --- 8. the agent stopped publishing ------------------------------------------------------------
stop_pid "$AGENT_alpha"
# heartbeat 5 s, interval 1 s: silent past 5 + 2 x 1 + 5 = 12 s
expect "8. an agent that stopped: found once it is silent past its heartbeat, with how to start it" \
    within 30 finds agent "cluster alpha: last published" "spiderflow-agent --config $A/agent.conf"
start_agent alpha
expect "... started again: clean again" within 30 clean

# --- 9. JobRequeue=1 with on_failure = requeue --------------------------------------------------
set_key "$A/slurm.conf" JobRequeue ""
echo "on_failure = requeue" >>"$A/spiderflow.conf"
reconfigure
expect "9. Slurm's default JobRequeue=1 while spiderflow.conf says on_failure = requeue: found, with JobRequeue=0" \
    within 10 finds job_requeue "is 1 while $A/spiderflow.conf says on_failure = requeue" "JobRequeue=0 in slurm.conf"
cp "$SF_TMP/slurm.conf.good" "$A/slurm.conf"
cp "$SF_TMP/spiderflow.conf.good" "$A/spiderflow.conf"
reconfigure
expect "... put back: clean again" within 10 clean

[ "$FAILS" -eq 0 ]
