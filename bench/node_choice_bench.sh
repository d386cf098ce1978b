#!/bin/bash
# Where a planned job lands inside a cluster, per Slurm version: the leaf switches its nodes span
# against the fewest the free nodes allow (the tightest choice, which SpiderFlow's node_pick
# makes). Slurm chooses with select/cons_tres and topology/tree, or, with SELECT=ours on 22.05
# built with the Slurm source, with select/spiderflow_cons_tres. One real cluster of 8 nodes
# under 4 leaf switches (2 a leaf, spines over leaf pairs), its agent and a broker; each trial
# makes a random set of whole nodes busy, submits a planned job of GPUS GPUs with plain sbatch,
# and compares. Prints the share of jobs at the fewest leaves and the mean leaves spanned, Slurm's
# over the fewest as a ratio (1.00 = always as tight as possible). The same loads every run.
# Usage (as root, from a build dir; in a Debian root through contrib/scripts/in-root.sh):
#   [SELECT=ours] bench/node_choice_bench.sh [TRIALS] [GPUS]      (default 20 trials, 32 GPUs)
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
export SF_SRCDIR=${SF_SRCDIR:-$SRC} SF_BUILDDIR=${SF_BUILDDIR:-$(pwd)}
TRIALS=${1:-20}
GPUS=${2:-32}
SELECT=${SELECT:-cons_tres}
. "$SRC/tests/integration/federation.sh"
C=sel
fed_init "$C:n1,n2,n3,n4,n5,n6,n7,n8"
D=$SF_TMP/$C
eight_node_leaves "$C"
# The same leaves in the federation's topology the planner reads.
python3 - "$SF_TMP/federation.json" <<'PY'
import json, sys
path = sys.argv[1]
t = json.load(open(path))
c = t["clusters"][0]
for n in c["nodes"]:
    n["switch"] = "l%d" % ((int(n["name"][1:]) + 1) // 2)
c["switches"] = [{"name": "l%d" % i} for i in range(1, 5)] + [
    {"name": "sp1", "switches": ["l1", "l2"]}, {"name": "sp2", "switches": ["l3", "l4"]},
    {"name": "top", "switches": ["sp1", "sp2"]}]
json.dump(t, open(path, "w"), indent=1)
PY
if [ "$SELECT" = ours ]; then
    so=$SF_BUILDDIR/plugins/select/.libs/select_spiderflow_cons_tres.so
    [ -f "$so" ] || { echo "SELECT=ours: $so not built (configure --with-slurm-source)" >&2; exit 2; }
    sed -i "s#^SelectType=.*#SelectType=select/spiderflow_cons_tres#" "$D/slurm.conf"
fi
fed_start
version=$(slurmctld -V)
waited() { grep -q '"epoch"' "$D/federation-state.json" 2>/dev/null; }
within 30 waited || { echo "the agent did not publish" >&2; exit 1; }

# The same loads in every run and on every version: trial t makes LOADS[t-1]'s nodes busy
# (1 to 4 of them, anywhere, so free nodes come in fragments across the leaves).
mapfile -t LOADS < <(python3 -c "
import random
r = random.Random(7)
for _ in range($TRIALS):
    print(' '.join(sorted(r.sample(['n%d' % i for i in range(1, 9)], r.randint(1, 4)))))")
tight=0 placed=0 best_leaves=0 slurm_leaves=0
for ((t = 1; t <= TRIALS; t++)); do
    busy=()
    for n in ${LOADS[t - 1]}; do
        on $C sbatch --parsable -w "$n" --exclusive --gres=gpu:8 -o /dev/null --wrap "sleep 600" >/dev/null && busy+=("$n")
    done
    busy_running() { [ "$(on $C squeue -h -t R -o %i | wc -l)" = "${#busy[@]}" ]; }
    within 30 busy_running
    sleep 3   # two agent cycles: job_submit plans on the cache with these nodes busy
    id=$(on $C sbatch --parsable --llm-model=llama3-8b --llm-global-batch=64 --gpus="$GPUS" -o /dev/null --wrap "sleep 600" 2>"$SF_TMP/sbatch.err")
    job_running() { [ "$(on $C squeue -h -j "$id" -o %T)" = RUNNING ]; }
    if [ -n "$id" ] && within 30 job_running; then
        got=$(on $C scontrol show hostnames "$(on $C squeue -h -j "$id" -o %N)" | sort | tr '\n' ' ')
        leaves() { for n in $1; do leaf_of "$n"; done | sort -u | wc -l; }
        gl=$(leaves "$got")
        # The fewest leaves whose free nodes hold the job: fullest leaves first.
        bl=$(for n in n1 n2 n3 n4 n5 n6 n7 n8; do [[ " ${busy[*]} " == *" $n "* ]] || leaf_of "$n"; done | sort | uniq -c |
            sort -rn | awk -v need=$(((GPUS + 7) / 8)) '{have += $1; k++; if (have >= need) {print k; exit}}')
        placed=$((placed + 1))
        [ "$gl" = "$bl" ] && tight=$((tight + 1))
        best_leaves=$((best_leaves + bl))
        slurm_leaves=$((slurm_leaves + gl))
        echo "  trial $t: busy ${busy[*]}; Slurm gave $got($gl leaves; the fewest possible $bl)" >&2
    else
        echo "  trial $t: busy ${busy[*]}; the planned job did not run: $(head -c 200 "$SF_TMP/sbatch.err")" >&2
    fi
    on $C scancel -u root
    cleared() { [ -z "$(on $C squeue -h -o %i)" ]; }
    within 30 cleared
    sleep 2
done
python3 - "$version" "$SELECT" "$TRIALS" "$placed" "$tight" "$best_leaves" "$slurm_leaves" "$GPUS" <<'PY'
import sys
version, select, trials, placed, tight, bl, sl, gpus = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:])
if placed == 0:
    sys.exit(f"node choice, {version}: no planned job ran in {trials} trials")
print(f"node choice, {version}, select/{select}, {gpus} GPUs: at the fewest leaf switches in {tight}/{placed} jobs "
      f"({100 * tight / placed:.0f}%); leaves spanned: fewest possible {bl / placed:.2f}, Slurm's {sl / placed:.2f} "
      f"(ratio {sl / bl:.2f})")
PY
