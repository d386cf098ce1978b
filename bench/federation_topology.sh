# Sourced by the benchmarks that plan on a localhost Slurm cluster inside a large federation
# (bench/submit_bench.sh, bench/sbatch_federation_bench.sh): one way to build that federation, so
# their figures are over the same kind of topology.
# Needs SPIDERFLOW (the spiderflow command) and SF_TMP with topology.json (this cluster, written
# by tests/integration/slurm_cluster.sh).

# make_topology N OUT: N-1 clusters from `spiderflow topo generate --seed 7` (the seed
# broker_bench.sh uses too) plus this cluster, with the same nodes as its slurm.conf, linked to the
# first generated cluster at 10 Gbit/s, 20 ms.
make_topology() {
    "$SPIDERFLOW" topo generate --clusters $(($1 - 1)) --seed 7 -o "$SF_TMP/gen$1.json" || return 1
    python3 - "$SF_TMP/gen$1.json" "$SF_TMP/topology.json" "$2" <<'PY'
import json, sys
gen, local, out = (json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3])
here = local["clusters"][0]
gen["clusters"].append(here)
gen["links"].append({"a": here["name"], "b": gen["clusters"][0]["name"], "gbps": 10, "latency_ms": 20})
json.dump(gen, open(out, "w"))
PY
}
