// The launch contract: every SPIDERFLOW_* variable that passes between the user's side,
// job_submit, the SPANK plugin, `spiderflow launch` and the training program, named once.
// Jobs outlive upgrades (a job planned before is launched after), so renaming or re-meaning one
// bumps kLaunchContractVersion, which job_submit writes into every planned job.
#pragma once

namespace spiderflow::env {

constexpr int kLaunchContractVersion = 2;
constexpr const char* kContractVersion = "SPIDERFLOW_CONTRACT";

// The user's options, as variables when not given on the command line (sbatch, salloc, srun).
constexpr const char* kModel = "SPIDERFLOW_MODEL";
constexpr const char* kGlobalBatchOption = "SPIDERFLOW_GLOBAL_BATCH";
constexpr const char* kMicroBatchOption = "SPIDERFLOW_MICRO_BATCH";
constexpr const char* kSeqLen = "SPIDERFLOW_SEQ_LEN";
constexpr const char* kGpus = "SPIDERFLOW_GPUS";
constexpr const char* kGpusMode = "SPIDERFLOW_GPUS_MODE";              // exact | at-most | best
constexpr const char* kObjective = "SPIDERFLOW_OBJECTIVE";
constexpr const char* kPolicy = "SPIDERFLOW_POLICY";
constexpr const char* kPlanFile = "SPIDERFLOW_PLAN_FILE";
constexpr const char* kSync = "SPIDERFLOW_SYNC";                      // sync | diloco
constexpr const char* kInnerSteps = "SPIDERFLOW_INNER_STEPS";         // DiLoCo's H
constexpr const char* kOuterPrecision = "SPIDERFLOW_OUTER_PRECISION"; // fp32 | bf16 | int8
constexpr const char* kStreaming = "SPIDERFLOW_STREAMING";            // yes | no
constexpr const char* kDistributedOptimizer = "SPIDERFLOW_DISTRIBUTED_OPTIMIZER";  // yes | no
constexpr const char* kRecompute = "SPIDERFLOW_RECOMPUTE";            // none | selective | full (yes | no)
constexpr const char* kSequenceParallel = "SPIDERFLOW_SEQUENCE_PARALLEL";  // yes | no
constexpr const char* kOnFailure = "SPIDERFLOW_ON_FAILURE";           // end | requeue (cross-site jobs)
constexpr const char* kReplan = "SPIDERFLOW_REPLAN";                  // keep | any
// The site config's path (plugins, launch).
constexpr const char* kConf = "SPIDERFLOW_CONF";

// Spank env, set by the SPANK plugin on the user's side: --llm-plan's content (plan_transport.h).
constexpr const char* kPlanContent = "SPIDERFLOW_PLAN_CONTENT";

// Set by job_submit in a planned job (batch steps also see them as SLURM_SPANK_<name>).
constexpr const char* kPlanData = "SPIDERFLOW_PLAN_DATA";  // the plan itself (plan_transport.h)
constexpr const char* kTp = "SPIDERFLOW_TP";
constexpr const char* kPp = "SPIDERFLOW_PP";
constexpr const char* kDp = "SPIDERFLOW_DP";
constexpr const char* kMicroBatch = "SPIDERFLOW_MICRO_BATCH";
constexpr const char* kGlobalBatch = "SPIDERFLOW_GLOBAL_BATCH";
constexpr const char* kLayerSplit = "SPIDERFLOW_LAYER_SPLIT";
constexpr const char* kClusters = "SPIDERFLOW_CLUSTERS";      // in plan order, commas
constexpr const char* kWanRttMs = "SPIDERFLOW_WAN_RTT_MS";
constexpr const char* kWanGbps = "SPIDERFLOW_WAN_GBPS";
constexpr const char* kTrafficLevel = "SPIDERFLOW_TRAFFIC_LEVEL";
// A cross-site job (doc/federation.md): set by job_submit in the home part (held until every part
// can start), and in every part once the broker has placed them all. A part's global ranks are
// RANK_BASE + its local ranks; the master and the world are the same in every part.
constexpr const char* kXJobHome = "SPIDERFLOW_XJOB_HOME";      // "1": this job is a home part
constexpr const char* kXJob = "SPIDERFLOW_XJOB";               // the cross-site job's id, HOME:JOBID
constexpr const char* kXJobPart = "SPIDERFLOW_XJOB_PART";      // this part's index in plan order
constexpr const char* kRankBase = "SPIDERFLOW_RANK_BASE";
constexpr const char* kWorldSize = "SPIDERFLOW_WORLD_SIZE";
constexpr const char* kMasterAddr = "SPIDERFLOW_MASTER_ADDR";  // rank 0's node, in the first part
constexpr const char* kMasterPort = "SPIDERFLOW_MASTER_PORT";
// Which run of the job this is: 1, then 2 after a failed part queued it again (--llm-on-failure
// = requeue), ...; from the second on, the previous run's layout ("tp=2 pp=2 dp=2 clusters=a,b"),
// so a program knows to load its checkpoint and how it was laid out.
constexpr const char* kAttempt = "SPIDERFLOW_ATTEMPT";
constexpr const char* kPreviousLayout = "SPIDERFLOW_PREVIOUS_LAYOUT";

// Set per task by the SPANK plugin (and by `spiderflow launch` for the whole step).
constexpr const char* kNodeRank = "SPIDERFLOW_NODE_RANK";
constexpr const char* kTpRank = "SPIDERFLOW_TP_RANK";
constexpr const char* kPpRank = "SPIDERFLOW_PP_RANK";
constexpr const char* kDpRank = "SPIDERFLOW_DP_RANK";
constexpr const char* kNcclTimeoutS = "SPIDERFLOW_NCCL_TIMEOUT_S";
constexpr const char* kRdzvTimeoutS = "SPIDERFLOW_RDZV_TIMEOUT_S";
constexpr const char* kNcclTcEp = "SPIDERFLOW_NCCL_TC_EP";   // per-communicator classes (NCCL >= 2.26)
constexpr const char* kNcclTcPp = "SPIDERFLOW_NCCL_TC_PP";
constexpr const char* kNcclTcDp = "SPIDERFLOW_NCCL_TC_DP";
constexpr const char* kPlanPath = "SPIDERFLOW_PLAN";         // `launch --plan FILE`, for the program

// The prefix Slurm gives spank-env values in a batch step's environment.
constexpr const char* kSlurmSpankPrefix = "SLURM_SPANK_";

}  // namespace spiderflow::env
