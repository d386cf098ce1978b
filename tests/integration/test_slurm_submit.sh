#!/bin/bash
# Integration: the submit path on a real Slurm cluster on localhost (see slurm_cluster.sh).
# Cases: a good spec runs with topology-ordered ranks and NCCL settings; each kind of bad spec
# fails at sbatch with our message; a job without our options is untouched; a broken topology
# file lets a SpiderFlow job through unchanged.
. "$(dirname "$0")/slurm_cluster.sh"
sf_cluster_can_run || exit 77
sf_cluster_start || exit 1

FAILS=0
ok() { echo "ok - $1"; }
not_ok() { echo "not ok - $1"; FAILS=$((FAILS + 1)); }
expect() {  # expect NAME COMMAND...
    local name=$1; shift
    if "$@"; then ok "$name"; else not_ok "$name"; fi
}

cat > "$SF_TMP/report.sh" <<'SCRIPT'
#!/bin/bash
echo "node=$SLURMD_NODENAME rank=$RANK local=$LOCAL_RANK world=$WORLD_SIZE master=$MASTER_ADDR port=$MASTER_PORT" \
     "tp=$SPIDERFLOW_TP pp=$SPIDERFLOW_PP dp=$SPIDERFLOW_DP tpr=$SPIDERFLOW_TP_RANK ppr=$SPIDERFLOW_PP_RANK" \
     "dpr=$SPIDERFLOW_DP_RANK cdmc=$CUDA_DEVICE_MAX_CONNECTIONS tc=$NCCL_IB_TC hca=$NCCL_IB_HCA if=$NCCL_SOCKET_IFNAME" \
     "lid=$SLURM_LOCALID nto=$SPIDERFLOW_NCCL_TIMEOUT_S"
SCRIPT
chmod +x "$SF_TMP/report.sh"
printf '#!/bin/bash\nsrun %s\n' "$SF_TMP/report.sh" > "$SF_TMP/train.sh"

# --- 1. a good spec runs; its steps hold topology-ordered ranks and NCCL settings -------------
out=$SF_TMP/out/good.txt
id=$(sbatch --parsable -o "$out" --llm-model=llama3-8b --llm-global-batch=64 --gpus=32 "$SF_TMP/train.sh" 2>"$SF_TMP/good.err")
if [ -z "$id" ]; then
    not_ok "good spec accepted"; cat "$SF_TMP/good.err" >&2
else
    ok "good spec accepted (job $id)"
    job=$(scontrol show job "$id")
    expect "job rewritten: plan attached" grep -q 'AdminComment=spiderflow plan' <<<"$job"
    expect "job rewritten: 4 nodes x 8 GPUs" grep -q 'NumNodes=4' <<<"$job"
    expect "job rewritten: GPU-type constraint" grep -q 'Features=H100-SXM' <<<"$job"
    state=$(sf_wait_job "$id")
    expect "good job completed (state $state)" test "$state" = COMPLETED
    [ "$state" = COMPLETED ] || { cat "$out" >&2; tail -20 "$SF_TMP/slurmd-a1.log" >&2; }
    expect "32 task lines" test "$(grep -c '^node=' "$out")" = 32
    expect "ranks 0..31 each once" test "$(grep -o ' rank=[0-9]*' "$out" | sort -u | wc -l)" = 32
    expect "WORLD_SIZE=32 everywhere" test "$(grep -c ' world=32 ' "$out")" = 32
    # a1 and c1 share switch s1: c1 follows a1 although b1 sorts before it.
    expect "c1 holds ranks 8..15 (switch order, not names)" \
        test "$(grep '^node=c1 ' "$out" | grep -o ' rank=[0-9]*' | cut -d= -f2 | sort -n | tr '\n' ' ')" = "8 9 10 11 12 13 14 15 "
    expect "b1 holds ranks 16..23" \
        test "$(grep '^node=b1 ' "$out" | grep -o ' rank=[0-9]*' | cut -d= -f2 | sort -n | head -1)" = 16
    expect "MASTER_ADDR is the first node in topology order" test "$(grep -c ' master=a1 ' "$out")" = 32
    expect "MASTER_PORT from the job id" test "$(grep -c " port=$((29500 + id % 1000)) " "$out")" = 32
    expect "CUDA_DEVICE_MAX_CONNECTIONS=1" test "$(grep -c ' cdmc=1 ' "$out")" = 32
    expect "NCCL_IB_TC from the site config" test "$(grep -c ' tc=106 ' "$out")" = 32
    expect "NCCL_SOCKET_IFNAME from the node's NICs" test "$(grep -c ' if=eth0 ' "$out")" = 32
    # a1's GPUs alternate between two NVLink domains (and HCAs): local ranks 0-3 take domain 0.
    expect "a1: LOCAL_RANK groups NVLink domains" \
        test "$(grep '^node=a1 ' "$out" | sort -t= -k3 -n | grep -o ' local=[0-9]*' | cut -d= -f2 | tr '\n' ' ')" = "0 2 4 6 1 3 5 7 "
    expect "a1: each rank gets its GPU's nearest HCA" \
        test "$(grep '^node=a1 ' "$out" | grep -cE ' local=[0246] .* hca==mlx5_0 | local=[1357] .* hca==mlx5_1 ')" = 8
    expect "NCCL timeout exported" test "$(grep -c ' nto=[0-9][0-9]* *$' "$out")" = 32
    # Coordinates agree with the degrees and the Megatron order: rank = tpr + tp*(dpr + dp*ppr).
    bad=$(awk '{for(i=1;i<=NF;i++){split($i,kv,"=");v[kv[1]]=kv[2]}
               if (v["tp"]*v["pp"]*v["dp"] != 32 || v["rank"] != v["tpr"] + v["tp"]*(v["dpr"] + v["dp"]*v["ppr"])) n++}
               END{print n+0}' "$out")
    expect "tp/pp/dp coordinates consistent with ranks" test "$bad" = 0
fi

# --- 1b. steps inside a planned job: an srun on part of the allocation, and `spiderflow launch` --
# sbatch exported the user's --gpus=16 as SLURM_GPUS; an inner srun re-reads it as its own step
# request, so a one-node step failed ("Invalid generic resource specification") until job_submit
# made the job's environment describe the rewritten request (SLURM_GPUS_PER_NODE).
out=$SF_TMP/out/steps.txt
{
    printf '#!/bin/bash\necho "batch gpus=$SLURM_GPUS gpn=$SLURM_GPUS_PER_NODE"\n'
    printf 'srun -N1 -n2 %s | sed "s/^/small /"\n' "$SF_TMP/report.sh"
    printf '%q launch -- %q\n' "$SF_BUILDDIR/spiderflow" "$SF_TMP/report.sh"
} > "$SF_TMP/steps.sh"
id=$(sbatch --parsable -o "$out" --llm-model=llama3-8b --llm-global-batch=64 --gpus=16 "$SF_TMP/steps.sh" 2>&1)
state=$(sf_wait_job "$id")
expect "steps job completed (state $state)" test "$state" = COMPLETED
expect "batch env: SLURM_GPUS dropped, GPUs per node as rewritten" grep -q '^batch gpus= gpn=8$' "$out"
expect "one-node srun step inside a planned job runs" test "$(grep -c '^small node=.* world=2 ' "$out")" = 2
expect "spiderflow launch: 16 task lines" test "$(grep -c '^node=' "$out")" = 16
expect "spiderflow launch: ranks 0..15 each once" test "$(grep '^node=' "$out" | grep -o ' rank=[0-9]*' | sort -u | wc -l)" = 16
expect "spiderflow launch: WORLD_SIZE=16, NCCL_IB_TC set" test "$(grep -c '^node=.* world=16 .* tc=106 ' "$out")" = 16
bad=$(grep '^node=' "$out" | awk '{for(i=1;i<=NF;i++){split($i,kv,"=");v[kv[1]]=kv[2]}
           if (v["tp"]*v["pp"]*v["dp"] != 16 || v["rank"] != v["tpr"] + v["tp"]*(v["dpr"] + v["dp"]*v["ppr"])) n++}
           END{print n+0}')
expect "spiderflow launch: tp/pp/dp coordinates consistent with ranks" test "$bad" = 0
[ "$state" = COMPLETED ] || cat "$out" >&2

# --- 1c. salloc and srun-only jobs: planned like sbatch ones, and their steps get the plan --------
# job_submit cannot reach their environment; slurmstepd reads the plan summary back from
# slurmctld. srun sizes its step from its own options (before job_submit's rewrite), so an
# srun-only job says its task count: one task per GPU.
coords_ok() {  # coords_ok FILE WORLD: each task line's tp/pp/dp coordinates agree with its rank
    awk -v w="$2" '/^node=/{for(i=1;i<=NF;i++){split($i,kv,"=");v[kv[1]]=kv[2]}
        if (v["world"] != w || v["tp"]*v["pp"]*v["dp"] != w || v["rank"] != v["tpr"] + v["tp"]*(v["dpr"] + v["dp"]*v["ppr"])) n++; t++}
        END{exit !(t == w && n == 0)}' "$1"
}
out=$SF_TMP/out/salloc.txt
timeout 60 salloc --llm-model=llama3-8b --llm-global-batch=64 --gpus=16 \
    bash -c "echo job=\$SLURM_JOB_ID; srun --ntasks-per-node=8 $SF_TMP/report.sh" >"$out" 2>"$SF_TMP/salloc.err"
id=$(grep -o '^job=[0-9]*' "$out" | cut -d= -f2)
expect "salloc job planned" grep -q 'AdminComment=spiderflow plan.* nodes=2x8' <<<"$(scontrol show job "$id" 2>&1)"
expect "salloc: srun step tasks hold ranks and tp/pp/dp coordinates" coords_ok "$out" 16
expect "salloc: ranks 0..15 each once" test "$(grep -o ' rank=[0-9]*' "$out" | sort -u | wc -l)" = 16
out=$SF_TMP/out/srun.txt
timeout 60 srun --llm-model=llama3-8b --llm-global-batch=64 --gpus=16 -n16 "$SF_TMP/report.sh" \
    >"$out" 2>"$SF_TMP/srun.err"
id=$(squeue -h -t all -o '%i' 2>/dev/null | sort -n | tail -1)
expect "srun-only job planned" grep -q 'AdminComment=spiderflow plan.* nodes=2x8' <<<"$(scontrol show job "$id" 2>&1)"
expect "srun-only: tasks hold ranks and tp/pp/dp coordinates" coords_ok "$out" 16
expect "srun-only: NCCL_IB_TC from the site config" test "$(grep -c ' tc=106 ' "$out")" = 16

# --- 2. each kind of bad spec fails at sbatch with our message ---------------------------------
bad_spec() {  # bad_spec NAME EXPECTED_TEXT SBATCH_ARGS...
    local name=$1 want=$2; shift 2
    local err rc
    err=$(sbatch --parsable -o /dev/null "$@" --wrap=true 2>&1)
    rc=$?
    if [ $rc -ne 0 ] && grep -qF -- "$want" <<<"$err"; then ok "rejected: $name"; else not_ok "rejected: $name (rc=$rc: $err)"; fi
}
bad_spec "unknown model" "unknown model 'gpt-17'" --llm-model=gpt-17 --llm-global-batch=64 --gpus=8
bad_spec "unknown model lists what exists" "llama3-8b" --llm-model=gpt-17 --llm-global-batch=64 --gpus=8
bad_spec "more GPUs than the cluster" "ask for at most 32" --llm-model=llama3-8b --llm-global-batch=64 --gpus=64
bad_spec "missing global batch" "--llm-global-batch is required" --llm-model=llama3-8b --gpus=8
bad_spec "no GPU count" "--gpus=N" --llm-model=llama3-8b --llm-global-batch=64
bad_spec "malformed value" "expected a positive integer" --llm-model=llama3-8b --llm-global-batch=lots --gpus=8
bad_spec "model does not fit" "spiderflow: cannot plan this job" --llm-model=llama3-405b --llm-global-batch=64 --gpus=8
bad_spec "bad policy" "bad --llm-policy" --llm-model=llama3-8b --llm-global-batch=64 --gpus=8 --llm-policy=magic
SPIDERFLOW_GLOBAL_BATCH=zero bad_spec "malformed SPIDERFLOW_* variable" "SPIDERFLOW_GLOBAL_BATCH" --llm-model=llama3-8b --gpus=8

# --- 3. a job without our options is untouched ------------------------------------------------
out=$SF_TMP/out/plain.txt
id=$(sbatch --parsable -o "$out" --gpus=8 --wrap="srun -n1 env" 2>&1)
job=$(scontrol show job "$id" 2>&1)
expect "plain job: no plan attached" bash -c "! grep -q 'AdminComment=spiderflow' <<<'$job'"
expect "plain job: request kept" grep -q 'TresPerJob=gres:gpu:8' <<<"$job"
state=$(sf_wait_job "$id")
expect "plain job completed (state $state)" test "$state" = COMPLETED
expect "plain job: no RANK/SPIDERFLOW variables" bash -c "! grep -qE '^(RANK|WORLD_SIZE|MASTER_ADDR|NCCL_[A-Z_]*|SPIDERFLOW_(TP|PP|DP|PLAN)|SLURM_SPANK_SPIDERFLOW[A-Z_]*)=' '$out'"

# --- 4. options from SPIDERFLOW_* variables plan like the command-line ones ----------------------
id=$(SPIDERFLOW_MODEL=llama3-8b SPIDERFLOW_GLOBAL_BATCH=64 sbatch --parsable -o /dev/null --gpus=16 --hold --wrap=true 2>&1)
expect "SPIDERFLOW_* variables plan the job" grep -q 'AdminComment=spiderflow plan' <<<"$(scontrol show job "$id" 2>&1)"
scancel "$id" 2>/dev/null

# --- 5. a broken topology file lets SpiderFlow jobs through unchanged (fail open) -----------------
echo '{"spiderflow_topology_version": 1, "clusters": [ broken' > "$SF_TMP/topology.json"
id=$(sbatch --parsable -o /dev/null --llm-model=llama3-8b --llm-global-batch=64 --gpus=8 --hold --wrap=true 2>&1)
job=$(scontrol show job "$id" 2>&1)
expect "broken topology: job accepted" grep -q "JobId=$id " <<<"$job"
expect "broken topology: request unchanged" grep -q 'TresPerJob=gres:gpu:8' <<<"$job"
expect "broken topology: no plan attached" bash -c "! grep -q 'AdminComment=spiderflow' <<<'$job'"
expect "broken topology: logged" grep -q 'spiderflow: job of uid 0 passes unplanned' "$SF_TMP/slurmctld.log"
scancel "$id" 2>/dev/null

if [ $FAILS -ne 0 ]; then
    echo "$FAILS check(s) failed; slurmctld log tail:" >&2
    grep spiderflow "$SF_TMP/slurmctld.log" | tail -20 >&2
    exit 1
fi
exit 0
