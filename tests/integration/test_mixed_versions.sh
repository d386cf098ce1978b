#!/bin/bash
# Integration: one cross-site job across clusters of different Slurm versions, as sites in one
# federation will not upgrade together. alpha runs this host's Slurm (22.05 on Debian 12) with
# this build; beta runs another version's daemons (SF_MIXED_SUITE: forky for 26.05, trixie for
# 24.11) inside its Debian root with the build contrib/scripts/test-slurm-version.sh made there
# (_build/SUITE). One munged, the broker and alpha's agent on the host, beta's agent in the root.
# A plain sbatch on alpha asks for more GPUs than alpha has; both parts run, and their tasks
# meet over a real TCP rendezvous at MASTER_ADDR:MASTER_PORT: one WORLD_SIZE, contiguous ranks,
# SLURM_PROCID the global rank on both versions.
# Skipped (77) unless SF_MIXED_SUITE names a suite whose root and build exist.
suite=${SF_MIXED_SUITE:-}
src=${SF_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
if [ -z "$suite" ]; then
    echo "skip: set SF_MIXED_SUITE=forky (or trixie) after contrib/scripts/test-slurm-version.sh SUITE" >&2
    exit 77
fi
other_build=$src/_build/$suite
[ -x "$other_build/spiderflow-agent" ] || { echo "skip: $other_build has no spiderflow-agent (run contrib/scripts/test-slurm-version.sh $suite)" >&2; exit 77; }
other_root=$("$src/contrib/scripts/debian-root.sh" "$suite" | tail -1) || { echo "no Debian root for $suite" >&2; exit 1; }

declare -A FED_ROOT FED_BUILD
FED_ROOT[beta]=$other_root
FED_BUILD[beta]=$other_build
# The root sees the repository at the same path, so the test's directory lives under the build.
SF_FED_TMPDIR=$SF_BUILDDIR
. "$(dirname "$0")/federation.sh"
fed_init alpha:an1,an2 beta:bn1,bn2
for c in alpha beta; do echo "part_min_uid = 0" >>"$SF_TMP/$c/agent.conf"; done  # the test's user is root
fed_start
echo "# alpha: $(slurmctld -V); beta: $(on beta slurmctld -V)"

published() { [ "$(curl -sf -H 'Authorization: Bearer tok-tools' "$URL/v1/clusters" | python3 -c 'import json,sys; print(sum(1 for c in json.load(sys.stdin)["clusters"] if c["published"]))')" = 2 ]; }
expect "both agents publish their cluster (22.05's from the host, $suite's from its root)" within 30 published
expect "alpha's job_submit sees the federation" within 10 grep -q '"epoch"' "$SF_TMP/alpha/federation-state.json"

# Every task meets rank 0 at MASTER_ADDR:MASTER_PORT over TCP; rank 0 answers once all
# WORLD_SIZE - 1 others have come, each with the same world and a distinct rank. A task writes
# its rank file (expect_one_world's format) only after that answer.
X=$SF_TMP/x
mkdir -p "$X"
cat >"$X/rendezvous.py" <<'PY'
import os, socket, sys, time
started = time.time()  # the rank file's time: when this task started, for the parts' skew
out = sys.argv[1]
rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
addr, port = os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"])
if rank == 0:
    server = socket.create_server(("", port))
    server.settimeout(120)
    peers = {}
    while len(peers) < world - 1:
        conn, _ = server.accept()
        r, w = map(int, conn.makefile().readline().split())
        if w != world or r in peers or not 0 < r < world:
            sys.exit(f"rendezvous: rank {r} of world {w} does not belong to world {world}")
        peers[r] = conn
    for conn in peers.values():
        conn.sendall(b"ok\n")
else:
    deadline = time.time() + 120
    while True:
        try:
            conn = socket.create_connection((addr, port), timeout=5)
            break
        except OSError:
            if time.time() > deadline:
                raise
            time.sleep(0.2)
    conn.sendall(f"{rank} {world}\n".encode())
    conn.settimeout(120)
    if conn.makefile().readline().strip() != "ok":
        sys.exit("rendezvous: rank 0 did not answer")
with open(f"{out}/rank-{rank}.txt", "w") as f:
    f.write(f"{os.environ['SLURM_CLUSTER_NAME']} {rank} {world} {addr}:{port} {os.environ['SLURM_PROCID']} {started}\n")
PY
cat >"$X/train.sh" <<SCRIPT
#!/bin/bash
srun /usr/bin/python3 $X/rendezvous.py $X
sleep 300
SCRIPT

home=$(on alpha sbatch --parsable --llm-model=llama3-8b --llm-global-batch=64 --gpus=32 -o "$X/home.out" "$X/train.sh" 2>"$X/sbatch.err")
expect "sbatch --gpus=32 on alpha (16 GPUs, Slurm 22.05) is accepted as a cross-site job (got '$home': $(head -c 300 "$X/sbatch.err"))" test -n "$home"
expect "... its plan crosses to beta ($suite)" grep -q "across 2 clusters: .*beta" "$X/sbatch.err"
took=$(wait_for 120 xjob_state_is "alpha:$home" running)
expect "both parts run within 120 s of sbatch (took ${took:-more than 120} s)" test -n "$took"
expect_one_world "alpha:$home" "$X" 32
echo "# mixed versions: sbatch to both parts running ${took:-?} s; skew between the parts' first ranks $(start_skew "$X" 2>/dev/null) s"

beta_part=$(xjob_field "alpha:$home" "[p['job_id'] for p in b['parts'] if p['cluster'] == 'beta'][0]")
on alpha scancel "$home"
expect "scancel of the home job ends the cross-site job" within 30 xjob_state_is "alpha:$home" failed
beta_gone() { [ -z "$(on beta squeue -h -j "$beta_part" -t R,PD,CG -o %i 2>/dev/null)" ]; }
expect "... and beta's part ($beta_part) with it" within 30 beta_gone
expect "... and no reservation is left behind" within 20 no_reservation_left

expect "no agent crashed" bash -c "! grep -qi 'terminate\|abort\|segmentation' $SF_TMP/*/agent.log"
if [ "$FAILS" -ne 0 ]; then
    for c in alpha beta; do echo "--- $c agent log"; tail -20 "$SF_TMP/$c/agent.log"; done
    echo "--- broker log"; tail -20 "$SF_TMP/brokerd.log"
    echo "--- home job's output"; tail -20 "$X/home.out"
    echo "--- beta's part output"; tail -20 "$other_root"/root/spiderflow-alpha_"$home"-*.out 2>/dev/null
fi
rm -f "$other_root"/root/spiderflow-alpha_"$home"-*.out 2>/dev/null
echo "$FAILS failure(s)"
[ "$FAILS" -eq 0 ]
