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
     "lid=$SLURM_LOCALID pid=$SLURM_PROCID cvd=$CUDA_VISIBLE_DEVICES nto=$SPIDERFLOW_NCCL_TIMEOUT_S"
SCRIPT
chmod +x "$SF_TMP/report.sh"
printf '#!/bin/bash\necho "batch rank=$RANK world=$WORLD_SIZE tp=$SPIDERFLOW_TP pp=$SPIDERFLOW_PP dp=$SPIDERFLOW_DP"\n%q job-plan > %q\nsrun %s\n' \
    "$SF_SPIDERFLOW" "$SF_TMP/out/good.plan.json" "$SF_TMP/report.sh" > "$SF_TMP/train.sh"
# rank -> node of the plan's rank table, one "rank node" line each
plan_ranks() { python3 -c 'import json,sys; [print(r["rank"], r["node"]) for r in json.load(open(sys.argv[1]))["ranks"]]' "$1"; }
# the same from the task lines
task_ranks() { grep '^node=' "$1" | sed -E 's/^node=([^ ]*) rank=([0-9]*) .*/\2 \1/' | sort -n; }

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
    expect "ranks 0..31 each once" test "$(grep '^node=' "$out" | grep -o ' rank=[0-9]*' | sort -u | wc -l)" = 32
    expect "WORLD_SIZE=32 everywhere" test "$(grep -c ' world=32 ' "$out")" = 32
    # One function decides rank order: the plan's rank table and the ranks steps get agree.
    expect "job-plan prints the job's plan" test -s "$SF_TMP/out/good.plan.json"
    expect "ranks on the nodes the plan's rank table names" test "$(task_ranks "$out")" = "$(plan_ranks "$SF_TMP/out/good.plan.json" | sort -n)"
    expect "the batch step is not rank 0 of the world" grep -q '^batch rank= world= ' "$out"
    batch_plan=$(grep -o '^batch .* \(tp=.*\)' "$out" | sed 's/^batch rank= world= //')
    task_plan=$(grep -m1 '^node=' "$out" | grep -o 'tp=[0-9]* pp=[0-9]* dp=[0-9]*')
    expect "the batch script sees the plan's degrees, as its tasks do ('$batch_plan', tasks '$task_plan')" \
        test -n "$task_plan" -a "$batch_plan" = "$task_plan"
    # A NodeName need not resolve: MASTER_ADDR is the node's NodeAddr.
    expect "MASTER_ADDR is rank 0's NodeAddr" test "$(grep -c ' master=127.0.0.1 ' "$out")" = 32
    expect "LOCAL_RANK is SLURM_LOCALID" test "$(grep -cE ' local=([0-9]*) .* lid=\1 ' "$out")" = 32
    # A plain srun numbers tasks in Slurm's order; where that differs from the plan, the step says so.
    differ=$(grep '^node=' "$out" | grep -cvE ' rank=([0-9]*) .* pid=\1 ')
    # Per node: the first SLURM_PROCID and the first RANK there.
    echo "# plain srun: node first-SLURM_PROCID first-RANK: $(grep '^node=' "$out" | sed -E 's/^node=([^ ]*) rank=([0-9]*) .* pid=([0-9]*) .*/\1 \3 \2/' | sort -k2n | awk '!seen[$1]++ {printf "%s %s %s; ", $1, $2, $3}')"
    if [ "$SF_SWITCH_ORDER" = yes ]; then
        expect "plain srun: Slurm numbers tasks by leaf switch, so SLURM_PROCID == RANK on every task ($differ differ)" test "$differ" = 0
        expect "... and the step prints no order note" bash -c "! grep -q 'differs from SLURM_PROCID' '$out'"
    elif [ "$differ" -gt 0 ]; then
        expect "plain srun in Slurm's order: the step says RANK differs from SLURM_PROCID" grep -q 'differs from SLURM_PROCID' "$out"
    else
        expect "plain srun in the plan's order: no note" bash -c "! grep -q 'differs from SLURM_PROCID' '$out'"
    fi
    expect "CUDA_DEVICE_MAX_CONNECTIONS=1" test "$(grep -c ' cdmc=1 ' "$out")" = 32
    expect "NCCL_IB_TC from the site config" test "$(grep -c ' tc=106 ' "$out")" = 32
    expect "NCCL_SOCKET_IFNAME from the node's NICs" test "$(grep -c ' if=eth0 ' "$out")" = 32
    # a1's GPUs alternate between two NVLink domains (and HCAs): local ranks 0-3 drive domain 0,
    # through a CUDA_VISIBLE_DEVICES order that keeps LOCAL_RANK equal to SLURM_LOCALID.
    expect "a1: CUDA_VISIBLE_DEVICES groups NVLink domains" \
        test "$(grep '^node=a1 ' "$out" | grep -c ' cvd=0,2,4,6,1,3,5,7 ')" = 8
    expect "a1: each rank gets its GPU's nearest HCA" \
        test "$(grep '^node=a1 ' "$out" | grep -cE ' local=[0-3] .* hca==mlx5_0 | local=[4-7] .* hca==mlx5_1 ')" = 8
    expect "NCCL timeout exported" test "$(grep -c ' nto=[0-9][0-9]* *$' "$out")" = 32
    # Coordinates agree with the degrees and the Megatron order: rank = tpr + tp*(dpr + dp*ppr).
    bad=$(grep '^node=' "$out" | awk '{for(i=1;i<=NF;i++){split($i,kv,"=");v[kv[1]]=kv[2]}
               if (v["tp"]*v["pp"]*v["dp"] != 32 || v["rank"] != v["tpr"] + v["tp"]*(v["dpr"] + v["dp"]*v["ppr"])) n++}
               END{print n+0}')
    expect "tp/pp/dp coordinates consistent with ranks" test "$bad" = 0
fi

# --- 1b. steps inside a planned job: an srun on part of the allocation, and `spiderflow launch` --
# sbatch exported the user's --gpus=16 as SLURM_GPUS; an inner srun re-reads it as its own step
# request, so a one-node step failed ("Invalid generic resource specification") until job_submit
# made the job's environment describe the rewritten request (SLURM_GPUS_PER_NODE).
out=$SF_TMP/out/steps.txt
{
    printf '#!/bin/bash\necho "batch gpus=$SLURM_GPUS gpn=$SLURM_GPUS_PER_NODE rank=$RANK"\n'
    printf 'srun -N1 -n2 %s | sed "s/^/small /"\n' "$SF_TMP/report.sh"
    printf '%q launch -- %q\n' "$SF_SPIDERFLOW" "$SF_TMP/report.sh"
} > "$SF_TMP/steps.sh"
id=$(sbatch --parsable -o "$out" --llm-model=llama3-8b --llm-global-batch=64 --gpus=16 "$SF_TMP/steps.sh" 2>"$SF_TMP/steps.err")
state=$(sf_wait_job "$id")
expect "steps job completed (state $state)" test "$state" = COMPLETED
expect "sbatch tells the user the plan" grep -q '^sbatch: spiderflow: planned llama3-8b as tp=.* on 2 node(s) x 8 GPUs' "$SF_TMP/steps.err"
expect "batch env: SLURM_GPUS dropped, GPUs per node as rewritten, no RANK" grep -q '^batch gpus= gpn=8 rank=$' "$out"
expect "one-node srun step inside a planned job runs, without ranks" test "$(grep -c '^small node=.* rank= local= world= ' "$out")" = 2
expect "spiderflow launch: 16 task lines" test "$(grep -c '^node=' "$out")" = 16
expect "spiderflow launch: ranks 0..15 each once" test "$(grep '^node=' "$out" | grep -o ' rank=[0-9]*' | sort -u | wc -l)" = 16
expect "spiderflow launch: WORLD_SIZE=16, NCCL_IB_TC set" test "$(grep -c '^node=.* world=16 .* tc=106 ' "$out")" = 16
# Slurm itself places launch's tasks in the plan's order: SLURM_PROCID is RANK, SLURM_LOCALID LOCAL_RANK.
expect "spiderflow launch: SLURM_PROCID == RANK" test "$(grep '^node=' "$out" | grep -cE ' rank=([0-9]*) .* pid=\1 ')" = 16
expect "spiderflow launch: SLURM_LOCALID == LOCAL_RANK" test "$(grep '^node=' "$out" | grep -cE ' local=([0-9]*) .* lid=\1 ')" = 16
expect "spiderflow launch: no order note" bash -c "! grep -q 'differs from SLURM_PROCID' '$out'"
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
# job_submit cannot reach an salloc job's environment: launch finds the plan in its AdminComment.
out=$SF_TMP/out/salloc-launch.txt
timeout 60 salloc --llm-model=llama3-8b --llm-global-batch=64 --gpus=16 \
    "$SF_SPIDERFLOW" launch -- "$SF_TMP/report.sh" >"$out" 2>"$SF_TMP/salloc-launch.err"
expect "salloc: spiderflow launch finds the plan and runs 16 ranks" coords_ok "$out" 16
expect "salloc: spiderflow launch places tasks in the plan's order" \
    test "$(grep '^node=' "$out" | grep -cE ' rank=([0-9]*) .* pid=\1 ')" = 16
[ "$(grep -c '^node=' "$out")" = 16 ] || cat "$SF_TMP/salloc-launch.err" >&2
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
    # Slurm's line after ours must not mislead: no "Unspecified error", no "not supported on this system".
    if [ $rc -ne 0 ] && grep -qF -- "$want" <<<"$err" && ! grep -q 'Unspecified error\|not supported on this system' <<<"$err"; then
        ok "rejected: $name"
    else
        not_ok "rejected: $name (rc=$rc: $err)"
    fi
}
bad_spec "unknown model" "unknown model 'gpt-17'" --llm-model=gpt-17 --llm-global-batch=64 --gpus=8
bad_spec "unknown model lists what exists" "llama3-8b" --llm-model=gpt-17 --llm-global-batch=64 --gpus=8
bad_spec "more GPUs than the cluster" "ask for at most 32" --llm-model=llama3-8b --llm-global-batch=64 --gpus=64
bad_spec "missing global batch" "--llm-global-batch is required" --llm-model=llama3-8b --gpus=8
bad_spec "no GPU count" "--gpus=N" --llm-model=llama3-8b --llm-global-batch=64
bad_spec "malformed value" "needs an integer between 1 and 100000000, not 'lots'" --llm-model=llama3-8b --llm-global-batch=lots --gpus=8
bad_spec "model does not fit" "spiderflow: cannot plan this job" --llm-model=llama3-405b --llm-global-batch=64 --gpus=8
bad_spec "bad policy" "bad --llm-policy" --llm-model=llama3-8b --llm-global-batch=64 --gpus=8 --llm-policy=magic
SPIDERFLOW_GLOBAL_BATCH=zero bad_spec "malformed SPIDERFLOW_* variable" "SPIDERFLOW_GLOBAL_BATCH" --llm-model=llama3-8b --gpus=8

# --- 3. a job without our options is untouched ------------------------------------------------
out=$SF_TMP/out/plain.txt
id=$(sbatch --parsable -o "$out" --gpus=8 --wrap="srun -n1 env" 2>"$SF_TMP/plain.err")
job=$(scontrol show job "$id" 2>&1)
expect "plain job: no plan attached" bash -c "! grep -q 'AdminComment=spiderflow' <<<'$job'"
expect "plain job: request kept" grep -qE 'TresPerJob=gres[:/]gpu:8' <<<"$job"
state=$(sf_wait_job "$id")
expect "plain job completed (state $state)" test "$state" = COMPLETED
expect "plain job: sbatch says nothing of SpiderFlow" bash -c "! grep -q spiderflow '$SF_TMP/plain.err'"
expect "plain job: no RANK/SPIDERFLOW variables" bash -c "! grep -qE '^(RANK|WORLD_SIZE|MASTER_ADDR|NCCL_[A-Z_]*|SPIDERFLOW_(TP|PP|DP|PLAN)|SLURM_SPANK_SPIDERFLOW[A-Z_]*)=' '$out'"

# --- 4. options from SPIDERFLOW_* variables plan like the command-line ones ----------------------
id=$(SPIDERFLOW_MODEL=llama3-8b SPIDERFLOW_GLOBAL_BATCH=64 sbatch --parsable -o /dev/null --gpus=16 --hold --wrap=true 2>/dev/null)
expect "SPIDERFLOW_* variables plan the job" grep -q 'AdminComment=spiderflow plan' <<<"$(scontrol show job "$id" 2>&1)"
scancel "$id" 2>/dev/null

# --- 5a. slurmctld opens no path a user names: sbatch reads --llm-plan's file as the user ----------
mkdir -p "$SF_TMP/work"
"$SF_SPIDERFLOW" plan --topology "$SF_TMP/topology.json" --model llama3-8b --global-batch 64 --gpus 16 \
    --format json -o "$SF_TMP/work/plan.json" 2>/dev/null
# A relative path means the user's directory; slurmctld's own directory is elsewhere.
id=$(cd "$SF_TMP/work" && sbatch --parsable -o /dev/null --llm-plan=plan.json --hold --wrap=true 2>/dev/null)
expect "--llm-plan: a relative path is read in the user's directory" \
    grep -q 'AdminComment=spiderflow plan.* nodes=2x8' <<<"$(scontrol show job "$id" 2>&1)"
scancel "$id" 2>/dev/null
mkfifo "$SF_TMP/work/fifo"
no_stack_blame() { ! grep -q 'init_post_opt\|post-option processing' <<<"$1"; }
for hostile in /dev/zero "$SF_TMP/work/fifo" "$SF_TMP/work"; do
    start=$(date +%s)
    err=$(timeout 30 sbatch --parsable -o /dev/null --llm-plan="$hostile" --wrap=true 2>&1)
    rc=$?
    expect "--llm-plan=$hostile refused at once by sbatch" test "$rc" -ne 0 -a "$rc" -ne 124 -a $(($(date +%s) - start)) -lt 10
    expect "--llm-plan=$hostile: the message says why" grep -q 'not a regular file' <<<"$err"
    expect "--llm-plan=$hostile: and nothing that blames the plugin stack ($(tr '\n' ' ' <<<"$err"))" no_stack_blame "$err"
    expect "--llm-plan=$hostile: slurmctld still answers" timeout 5 squeue -h
done

# --- 5b. a typo in spiderflow.conf turns SpiderFlow off, never the cluster ----------------------
cp "$SF_TMP/spiderflow.conf" "$SF_TMP/spiderflow.conf.good"
echo "time_budgit = 5" >> "$SF_TMP/spiderflow.conf"
id=$(sbatch --parsable -o /dev/null --wrap=true 2>"$SF_TMP/typo-plain.err")
expect "config typo: a plain job is accepted" test -n "$id"
expect "config typo: the plain job completes (state $(sf_wait_job "$id"))" test "$(sf_wait_job "$id")" = COMPLETED
expect "config typo: the plain job's sbatch printed nothing of ours ($(cat "$SF_TMP/typo-plain.err"))" \
    test ! -s "$SF_TMP/typo-plain.err"
expect "config typo: srun works" timeout 60 srun -n1 true 2>"$SF_TMP/typo-srun.err"
expect "config typo: a plain srun printed nothing of ours ($(cat "$SF_TMP/typo-srun.err"))" \
    test ! -s "$SF_TMP/typo-srun.err"
# Both sides of the cluster agree: the step side is off (it reads the file at each step), so
# job_submit does not plan on the last good settings either; a job that asks for SpiderFlow is
# refused at once with the reason instead of running without the ranks it was promised.
id=$(sbatch --parsable -o "$SF_TMP/out/typo.txt" --llm-model=llama3-8b --llm-global-batch=64 --gpus=16 \
    --wrap="srun $SF_TMP/report.sh" 2>"$SF_TMP/typo.err")
expect "config typo: a SpiderFlow job is refused at once ($(tr '\n' ' ' <"$SF_TMP/typo.err"))" test -z "$id"
expect "... sbatch says SpiderFlow is off and names the broken key" grep -q "SpiderFlow is off on this cluster (configuration error: .*time_budgit" "$SF_TMP/typo.err"
expect "... slurmctld's log says it is off until the file is fixed" grep -q 'time_budgit.*SpiderFlow is OFF for jobs that ask for it' "$SF_TMP/slurmctld.log"
cp "$SF_TMP/spiderflow.conf.good" "$SF_TMP/spiderflow.conf"
touch -d '+1 second' "$SF_TMP/spiderflow.conf"   # a new mtime even within the second of the last write
id=$(sbatch --parsable -o /dev/null --llm-model=llama3-8b --llm-global-batch=64 --gpus=16 --hold --wrap=true 2>/dev/null)
expect "config fixed: SpiderFlow jobs are planned again" grep -q 'AdminComment=spiderflow plan' <<<"$(scontrol show job "$id" 2>&1)"
expect "... and the log says so" grep -q 'read again: SpiderFlow is on' "$SF_TMP/slurmctld.log"
scancel "$id" 2>/dev/null

# --- 5c. explicit choices are constraints: kept, or rejected with both values ---------------------
bad_spec "-N4 with a one-node plan names both" "you asked for 4 nodes (-N) but the plan for 8 GPUs uses 1 node(s) x 8" \
    --llm-model=llama3-8b --llm-global-batch=64 -N4 --gpus=8
bad_spec "--gpus=abc names the missing count" "--gpus=abc names no GPU count" --llm-model=llama3-8b --llm-global-batch=64 --gpus=abc
bad_spec "--ntasks-per-node that fits no layout" "--ntasks-per-node=3 does not match" \
    --llm-model=llama3-8b --llm-global-batch=64 --gpus=16 --ntasks-per-node=3
id=$(sbatch --parsable -o /dev/null --llm-model=llama3-8b --llm-global-batch=64 --gpus=16 --ntasks-per-node=1 --hold --wrap=true 2>/dev/null)
expect "--ntasks-per-node=1 (one launcher per node) is kept" grep -qE 'NumNodes=2(-2)? NumCPUs=[0-9]* NumTasks=2 ' <<<"$(scontrol show job "$id" 2>&1)"
scancel "$id" 2>/dev/null
# 14 GPUs over 8-GPU nodes: either every node gets the same tasks and GPUs, or the count is refused
# with what fits (once 2 nodes and 14 tasks without a per-node count put 13 tasks on one node).
out=$SF_TMP/out/uneven.txt
id=$(sbatch --parsable -o "$out" --llm-model=llama3-8b --llm-global-batch=56 --gpus=14 --wrap="srun $SF_TMP/report.sh" 2>"$SF_TMP/uneven.err")
if [ -n "$id" ]; then
    sf_wait_job "$id" >/dev/null
    expect "--gpus=14: every task drives a GPU its node has" test "$(grep -c '^node=' "$out")" = 14 -a \
        "$(grep '^node=' "$out" | awk '{print $1}' | sort | uniq -c | awk '{print $1}' | sort -u | wc -l)" = 1
else
    expect "--gpus=14: refused with the counts that fit" grep -q 'ask for --gpus=8 or --gpus=16' "$SF_TMP/uneven.err"
fi

# --- 5d. a site state snapshot: drained and down nodes are left out of plans --------------------
printf 'drain a1 bad DIMM\ndown b1\nsnapshot\n' | "$SF_SPIDERFLOW" query --topology "$SF_TMP/topology.json" | sed -n '/^{/,$p' >"$SF_TMP/site-state.json"
expect "site state: the snapshot has the two nodes" grep -q '"down"' "$SF_TMP/site-state.json"
cp "$SF_TMP/spiderflow.conf" "$SF_TMP/spiderflow.conf.good"
echo "site_state = $SF_TMP/site-state.json" >> "$SF_TMP/spiderflow.conf"
bad_spec "site state: 24 GPUs with two of four nodes out" "2 of its 4 nodes are drained or down); ask for at most 16" \
    --llm-model=llama3-8b --llm-global-batch=64 --gpus=24
id=$(sbatch --parsable -o /dev/null --llm-model=llama3-8b --llm-global-batch=64 --gpus=16 --hold --wrap=true 2>/dev/null)
expect "site state: 16 GPUs on the two usable nodes are planned" grep -q 'AdminComment=spiderflow' <<<"$(scontrol show job "$id" 2>&1)"
scancel "$id" 2>/dev/null
echo '{ "spiderflow_site_state_version": 1, broken' > "$SF_TMP/site-state.json"
id=$(sbatch --parsable -o /dev/null --llm-model=llama3-8b --llm-global-batch=64 --gpus=24 --hold --wrap=true 2>/dev/null)
expect "broken site state: the job is planned on the whole topology" grep -q 'AdminComment=spiderflow' <<<"$(scontrol show job "$id" 2>&1)"
expect "broken site state: slurmctld's log says why" grep -q 'spiderflow: site state not used' "$SF_TMP/slurmctld.log"
scancel "$id" 2>/dev/null
cp "$SF_TMP/spiderflow.conf.good" "$SF_TMP/spiderflow.conf"

# --- 5. a broken topology file lets SpiderFlow jobs through unchanged (fail open) -----------------
echo '{"spiderflow_topology_version": 1, "clusters": [ broken' > "$SF_TMP/topology.json"
id=$(sbatch --parsable -o /dev/null --llm-model=llama3-8b --llm-global-batch=64 --gpus=8 --hold --wrap=true 2>"$SF_TMP/unplanned.err")
job=$(scontrol show job "$id" 2>&1)
expect "broken topology: sbatch tells the user the job runs unplanned" grep -q 'spiderflow: this job runs UNPLANNED' "$SF_TMP/unplanned.err"
expect "broken topology: job accepted" grep -q "JobId=$id " <<<"$job"
expect "broken topology: request unchanged" grep -qE 'TresPerJob=gres[:/]gpu:8' <<<"$job"
expect "broken topology: no plan attached" bash -c "! grep -q 'AdminComment=spiderflow' <<<'$job'"
expect "broken topology: logged" grep -q 'spiderflow: job of uid 0 passes unplanned' "$SF_TMP/slurmctld.log"
scancel "$id" 2>/dev/null

if [ $FAILS -ne 0 ]; then
    echo "$FAILS check(s) failed; slurmctld log tail:" >&2
    grep spiderflow "$SF_TMP/slurmctld.log" | tail -20 >&2
    exit 1
fi
exit 0
