#!/bin/bash
# A site behind a link the fault tests can cut: a cluster of federation.sh (its slurmctld, slurmd,
# jobs and agent) runs inside its own network namespace, joined to this host by a veth pair; the
# broker listens on the host's end of the first pair, so every agent and tool reaches it there.
# Source after federation.sh and before fed_init:
#   netns_site beta gamma      # one namespace per named cluster; sets FED_NETNS, FED_BROKER_ADDR
#   netns_cut beta             # every packet between beta and the broker dropped, both ways
#   netns_heal beta
# Dropped, not refused: a tbf qdisc whose bucket is smaller than any packet discards them all
# (this kernel has no netem, no tc classifier and no iptables; checked in SLURM-NOTES.md), so the
# agent's calls hang to their timeouts as they would behind a dead WAN link. The namespaces and
# links go at exit. Exits 77 where namespaces cannot be made.
command -v ip >/dev/null && command -v tc >/dev/null || { sf_log "skip: ip/tc (iproute2) missing"; exit 77; }

NETNS_ALL=()
declare -A NETNS_HOST_IF NETNS_IF
# Links of one test share a /24 picked from its PID, free among this host's addresses: tests
# running side by side (and other engineers' namespaces) never meet.
netns_subnet() {
    local i n
    for ((i = 0; i < 200; i++)); do
        n=$((($$ + i) % 200 + 20))
        ip -o addr show | grep -q " 10\.241\.$n\." || { echo "10.241.$n"; return 0; }
    done
    return 1
}
netns_delete_all() {
    local ns
    for ns in "${NETNS_ALL[@]}"; do ip netns del "$ns" 2>/dev/null; ip link del "${NETNS_HOST_IF[$ns]}" 2>/dev/null; done
    NETNS_ALL=()
}
trap 'fed_stop_all; netns_delete_all' EXIT

# netns_site CLUSTER...: one namespace and veth pair per cluster; the broker's address is the host
# end of the first pair.
netns_site() {
    local net c k=0 ns
    net=$(netns_subnet) || { sf_log "no free 10.241.x.0/24 here"; exit 77; }
    for c in "$@"; do
        ns=sf$$-$c
        # Interface names hold 15 characters: the PID and an index keep them unique on the host.
        NETNS_HOST_IF[$ns]=sfh$$x$k
        NETNS_IF[$ns]=sfn$$x$k
        ip netns add "$ns" 2>/dev/null || { sf_log "skip: cannot create network namespaces"; exit 77; }
        NETNS_ALL+=("$ns")
        ip link add "${NETNS_HOST_IF[$ns]}" type veth peer name "${NETNS_IF[$ns]}" || { sf_log "skip: cannot create veth pairs"; exit 77; }
        ip link set "${NETNS_IF[$ns]}" netns "$ns"
        ip addr add "$net.$((4 * k + 1))/30" dev "${NETNS_HOST_IF[$ns]}"
        ip link set "${NETNS_HOST_IF[$ns]}" up
        ip -n "$ns" addr add "$net.$((4 * k + 2))/30" dev "${NETNS_IF[$ns]}"
        ip -n "$ns" link set "${NETNS_IF[$ns]}" up
        ip -n "$ns" link set lo up
        FED_NETNS[$c]=$ns
        k=$((k + 1))
    done
    FED_BROKER_ADDR=$net.1
    # The other namespaces reach the broker's address through their own pair's host end (the host
    # takes a packet for any of its addresses on any interface: no forwarding involved).
    for ((k = 1; k < $#; k++)); do ip -n "${NETNS_ALL[k]}" route add "$net.1/32" via "$net.$((4 * k + 1))"; done
}

# netns_cut CLUSTER / netns_heal CLUSTER
netns_cut() {
    local ns=${FED_NETNS[$1]}
    tc qdisc replace dev "${NETNS_HOST_IF[$ns]}" root tbf rate 1kbit burst 10 limit 10
    ip netns exec "$ns" tc qdisc replace dev "${NETNS_IF[$ns]}" root tbf rate 1kbit burst 10 limit 10
}
netns_heal() {
    local ns=${FED_NETNS[$1]}
    tc qdisc del dev "${NETNS_HOST_IF[$ns]}" root 2>/dev/null
    ip netns exec "$ns" tc qdisc del dev "${NETNS_IF[$ns]}" root 2>/dev/null
    return 0
}
