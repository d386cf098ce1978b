#!/bin/bash
# Integration: coflow enforcement by the SPANK plugin's job prolog/epilog under a real slurmd
# (see slurm_cluster.sh). With traffic_control on for a stand-in WAN interface, a job sees its
# best-effort HTB class while it runs; after it completes, and after a running job is
# cancelled, the class (and the root, as the last job) is gone. Exits 77 (skipped) without
# root, the Slurm/munge binaries, tc or veth interfaces.
. "$(dirname "$0")/slurm_cluster.sh"
sf_cluster_can_run || exit 77
command -v tc >/dev/null || { sf_log "SKIP: tc not installed"; exit 77; }
WAN=sfwan$$
# A veth pair stands in for the WAN interface (its peer only keeps it up; no traffic is sent).
ip link add "$WAN" type veth peer name "${WAN}p" 2>/dev/null || { sf_log "SKIP: cannot create a veth pair"; exit 77; }
ip link set "$WAN" up
sf_cluster_start || { ip link del "$WAN"; exit 1; }
trap 'ip link del "$WAN" 2>/dev/null; sf_cluster_stop' EXIT
# The prolog/epilog (a fresh slurmstepd per job) read the site config each time.
printf 'traffic_control = yes\nwan_interface = %s\nwan_rate_mbit = 1000\n' "$WAN" >>"$SF_TMP/spiderflow.conf"

FAILS=0
ok() { echo "ok - $1"; }
not_ok() { echo "not ok - $1"; FAILS=$((FAILS + 1)); }
minor() { printf '1:%x' $((0x100 + $1 % 0xfe00)); }
nothing_left() {
    [ -z "$(tc class show dev "$WAN")" ] && [ -z "$(tc filter show dev "$WAN")" ] && ! tc qdisc show dev "$WAN" | grep -q htb
}

# --- 1. a job sees its class while it runs; it is gone after the job --------------------------
printf '#!/bin/bash\ntc class show dev %s\n' "$WAN" >"$SF_TMP/show.sh"
id=$(sbatch --parsable -N1 -o "$SF_TMP/out/tc-%j.txt" "$SF_TMP/show.sh")
state=$(sf_wait_job "$id")
[ "$state" = COMPLETED ] && ok "job $id completed" || not_ok "job $id completed (state $state)"
if grep -q "class htb $(minor "$id") parent 1:1 .*prio 5" "$SF_TMP/out/tc-$id.txt"; then
    ok "job $id ran in its best-effort class $(minor "$id")"
else
    not_ok "job $id ran in its class; it saw: $(cat "$SF_TMP/out/tc-$id.txt")"
fi
if nothing_left; then ok "class and root gone after job $id"; else not_ok "rules left after job $id: $(tc class show dev "$WAN")"; fi

# --- 2. a cancelled job's class is removed too ----------------------------------------------
id=$(sbatch --parsable -N1 -o /dev/null --wrap "sleep 120")
for _ in $(seq 100); do tc class show dev "$WAN" | grep -q "$(minor "$id") " && break; sleep 0.2; done
if tc class show dev "$WAN" | grep -q "$(minor "$id") "; then ok "running job $id has its class"; else not_ok "running job $id has its class"; fi
scancel "$id"
state=$(sf_wait_job "$id")
for _ in $(seq 50); do nothing_left && break; sleep 0.2; done
if nothing_left; then ok "class gone after cancelling job $id ($state)"; else not_ok "rules left after cancelled job $id: $(tc class show dev "$WAN")"; fi
grep -h "spiderflow" "$SF_TMP"/slurmd-*.log 2>/dev/null | tail -6 >&2

echo "spiderflow-it: $FAILS failure(s)"
[ "$FAILS" = 0 ]
