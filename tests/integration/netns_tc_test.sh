#!/usr/bin/env bash
# Enforcement for real: two competing TCP flows between two network namespaces over a veth pair
# shaped by `spiderflow coflow tc`. Checks that
#   1. the high-priority job's flow gets the share the schedule asked for (80/20 of the link),
#   2. `tc change` swaps the order (the other job now gets 80%),
#   3. after `tc remove` + `tc clear` no class, filter or HTB qdisc is left;
# then the same through the SPANK plugin's job prolog/epilog code path (job_tc_driver, which
# calls what the hooks call) with a site config: classes appear at job start at the job's level,
# `spiderflow coflow set-class` swaps two running jobs, each job's end removes its class and the
# last one the root, a second end is harmless, and a bad interface fails open with a reason.
# Traffic stays inside the namespaces; each iperf3 run is bounded; the namespaces are deleted on
# every exit path. Exits 77 (skip) when not root, or netns/veth/iperf3/tc are unavailable.
set -u

skip() { echo "spiderflow: netns_tc_test: SKIP: $*"; exit 77; }
fail() { echo "spiderflow: netns_tc_test: FAIL: $*"; exit 1; }

[ "$(id -u)" = 0 ] || skip "needs root"
command -v ip >/dev/null || skip "ip (iproute2) not installed"
command -v tc >/dev/null || skip "tc (iproute2) not installed"
command -v iperf3 >/dev/null || skip "iperf3 not installed"
SF=${SF_BUILDDIR:-$(pwd)}/spiderflow
[ -x "$SF" ] || SF=$(command -v spiderflow) || skip "spiderflow binary not found"

tag=sf$$
A=${tag}a; B=${tag}b; VA=${tag}va; VB=${tag}vb
LINK_MBIT=100
pids=()
conf=$(mktemp)
cleanup() {
    rm -f "$conf"
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
    ip netns del "$A" 2>/dev/null
    ip netns del "$B" 2>/dev/null
}
trap cleanup EXIT INT TERM

ip netns add "$A" 2>/dev/null || skip "cannot create network namespaces"
ip netns add "$B" || skip "cannot create network namespaces"
ip link add "$VA" type veth peer name "$VB" 2>/dev/null || skip "cannot create veth pairs"
ip link set "$VA" netns "$A" && ip link set "$VB" netns "$B" || fail "moving veth ends"
ip -n "$A" addr add 10.77.0.1/24 dev "$VA"
ip -n "$B" addr add 10.77.0.2/24 dev "$VB"
ip -n "$A" link set "$VA" up; ip -n "$A" link set lo up
ip -n "$B" link set "$VB" up; ip -n "$B" link set lo up

inA() { ip netns exec "$A" "$@"; }
sf() { inA "$SF" coflow tc "$@" || fail "spiderflow coflow tc $*"; }

sf setup --dev "$VA" --link-mbit $LINK_MBIT
sf install --dev "$VA" --link-mbit $LINK_MBIT --job 101 --level 0 --share 0.8   # DSCP 46 (EF)
sf install --dev "$VA" --link-mbit $LINK_MBIT --job 102 --level 4 --share 0.2   # DSCP 10 (AF11)

# Two servers in B; clients in A mark their packets with each job's DSCP (TOS byte = DSCP << 2).
for port in 5301 5302; do
    ip netns exec "$B" timeout 30 iperf3 -s -1 -p $port >/dev/null 2>&1 &
    pids+=($!)
done
sleep 0.5

# Runs both flows for 4 s at once; prints "MBIT_101 MBIT_102" (receiver side).
measure() {
    local out1 out2
    out1=$(mktemp); out2=$(mktemp)
    inA timeout 15 iperf3 -c 10.77.0.2 -p 5301 -t 4 -S 184 -J >"$out1" 2>&1 &
    local c1=$!
    inA timeout 15 iperf3 -c 10.77.0.2 -p 5302 -t 4 -S 40 -J >"$out2" 2>&1 &
    local c2=$!
    wait $c1 $c2
    python3 - "$out1" "$out2" <<'PY'
import json, sys
r = []
for f in sys.argv[1:]:
    try:
        r.append(json.load(open(f))["end"]["sum_received"]["bits_per_second"] / 1e6)
    except Exception as e:
        print("nan nan"); sys.exit(0)
print("%.1f %.1f" % tuple(r))
PY
    rm -f "$out1" "$out2"
}

read -r m1 m2 < <(measure)
echo "spiderflow: netns_tc_test: job 101 (level 0, 80%) ${m1} Mbit/s, job 102 (level 4, 20%) ${m2} Mbit/s"
python3 -c "import sys; a,b=float('$m1'),float('$m2'); sys.exit(0 if a > 2.5*b and b > 5 and a+b < $LINK_MBIT*1.1 else 1)" \
    || fail "expected about 80/20 of $LINK_MBIT Mbit/s, got $m1 / $m2"

# Change the running jobs' classes: the order flips.
sf change --dev "$VA" --link-mbit $LINK_MBIT --job 101 --level 4 --share 0.2 --dscp 46
sf change --dev "$VA" --link-mbit $LINK_MBIT --job 102 --level 0 --share 0.8 --dscp 10
for port in 5301 5302; do
    ip netns exec "$B" timeout 30 iperf3 -s -1 -p $port >/dev/null 2>&1 &
    pids+=($!)
done
sleep 0.5
read -r n1 n2 < <(measure)
echo "spiderflow: netns_tc_test: after change: job 101 ${n1} Mbit/s, job 102 ${n2} Mbit/s"
python3 -c "import sys; a,b=float('$n1'),float('$n2'); sys.exit(0 if b > 2.5*a and a > 5 else 1)" \
    || fail "expected the order to flip, got $n1 / $n2"

# Job end: rules are gone.
sf remove --dev "$VA" --job 101
sf remove --dev "$VA" --job 102
[ -z "$(inA tc filter show dev "$VA")" ] || fail "filters left: $(inA tc filter show dev "$VA")"
inA tc class show dev "$VA" | grep -q "1:165\|1:166" && fail "job classes left"
sf clear --dev "$VA"
inA tc qdisc show dev "$VA" | grep -q htb && fail "HTB qdisc left: $(inA tc qdisc show dev "$VA")"

# --- Job start/end as the SPANK plugin does it -------------------------------------------------
DRIVER=${SF_BUILDDIR:-$(pwd)}/tests/integration/job_tc_driver
[ -x "$DRIVER" ] || fail "job_tc_driver not built ($DRIVER)"
printf 'traffic_control = yes\nwan_interface = %s\nwan_rate_mbit = %s\n' "$VA" $LINK_MBIT >"$conf"
job() { inA "$DRIVER" "$@" || fail "job_tc_driver $*"; }
servers() {
    for port in 5301 5302; do
        ip netns exec "$B" timeout 30 iperf3 -s -1 -p $port >/dev/null 2>&1 &
        pids+=($!)
    done
    sleep 0.5
}
# Job 201 at level 0 (EF: the TOS 184 flow), job 202 at level 4 (AF11: the TOS 40 flow).
job prolog "$conf" 201 0
job prolog "$conf" 202 4
inA tc qdisc show dev "$VA" | grep -q "htb 1: root" || fail "no HTB root after job start"
classes=$(inA tc class show dev "$VA")
echo "$classes" | grep -q "1:1c9 .*prio 0" || fail "job 201's level-0 class missing: $classes"
echo "$classes" | grep -q "1:1ca .*prio 4" || fail "job 202's level-4 class missing: $classes"
servers
read -r j1 j2 < <(measure)
echo "spiderflow: netns_tc_test: jobs started by the prolog path: 201 (level 0) ${j1} Mbit/s, 202 (level 4) ${j2} Mbit/s"
python3 -c "import sys; a,b=float('$j1'),float('$j2'); sys.exit(0 if a > 2.5*b and b > 1 else 1)" \
    || fail "expected job 201 well ahead of 202, got $j1 / $j2"

# The controller swaps them while they run; interface and rate come from the site config.
SPIDERFLOW_CONF="$conf" inA "$SF" coflow set-class --job 201 --level 4 || fail "set-class 201"
SPIDERFLOW_CONF="$conf" inA "$SF" coflow set-class --job 202 --level 0 || fail "set-class 202"
SPIDERFLOW_CONF="$conf" inA "$SF" coflow set-class --job 999 --level 0 2>/dev/null && fail "set-class of a job without a class succeeded"
servers
read -r k1 k2 < <(measure)
echo "spiderflow: netns_tc_test: after set-class: 201 ${k1} Mbit/s, 202 ${k2} Mbit/s"
python3 -c "import sys; a,b=float('$k1'),float('$k2'); sys.exit(0 if b > 2.5*a and a > 1 else 1)" \
    || fail "expected the order to flip after set-class, got $k1 / $k2"

# Job ends: one class at a time, the root with the last; a repeated end is harmless.
job epilog "$conf" 201
classes=$(inA tc class show dev "$VA")
echo "$classes" | grep -q "1:1c9 " && fail "job 201's class left after its end: $classes"
echo "$classes" | grep -q "1:1ca " || fail "job 202's class went with job 201's end"
job epilog "$conf" 202
[ -z "$(inA tc filter show dev "$VA")" ] || fail "filters left after the jobs: $(inA tc filter show dev "$VA")"
inA tc qdisc show dev "$VA" | grep -q htb && fail "HTB qdisc left after the last job: $(inA tc qdisc show dev "$VA")"
job epilog "$conf" 202

# Fail open: a wrong interface is reported, not fatal (the hook logs it and returns 0).
printf 'traffic_control = yes\nwan_interface = nosuchif0\nwan_rate_mbit = 100\n' >"$conf"
out=$(inA "$DRIVER" prolog "$conf" 203 0) && fail "prolog on a missing interface claimed success: $out"
echo "$out" | grep -q "tc failed" || fail "no reason given: $out"
echo "spiderflow: netns_tc_test: job prolog/epilog path: PASS"
echo "spiderflow: netns_tc_test: PASS"
exit 0
