// A cross-site job: one training job whose plan spans clusters, run as one Slurm job (a "part")
// per cluster, all started together at a common time and ended together. Plain data: the
// co-allocator (coallocator.h) moves it through its states, the broker stores it, the agents
// carry out its orders, the simulator can replay it.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace spiderflow::coalloc {

// queued -> negotiating -> reserving -> starting -> running -> ending -> completed | failed.
// A failed attempt at reserving goes back to negotiating at a later time; a missed start
// barrier ends every part and queues the job again.
enum class XJobState { Queued, Negotiating, Reserving, Starting, Running, Ending, Completed, Failed };

// What the plan gives one cluster: how many nodes and GPUs, and how many ranks (processes).
struct PartSpec {
    std::string cluster;
    int nodes = 0;
    int gpus_per_node = 0;
    int ranks = 0;
};

// What the broker has heard of one part in the current attempt.
struct Part {
    PartSpec spec;
    int64_t offer = 0;                    // earliest start its cluster's Slurm gave (will-run); 0 = none yet
    std::string reservation{};            // the reservation holding its nodes at the common start
    std::vector<std::string> nodes{};     // those nodes, known once reserved
    std::string address{};                // the first one's address other sites reach (MASTER_ADDR)
    std::vector<std::string> to_release{};  // reservations of earlier attempts still to remove
    uint32_t job_id = 0;                  // its Slurm job id, once submitted
    bool running = false;
    bool ended = false;                   // its job ended, or it was cancelled before it had one
    bool abandoned = false;               // its cluster went silent while it was to end: counted
                                          // as ended, still ordered cancelled until confirmed
    std::string end_reason{};
    int64_t completed_at = 0;             // when its job completed (exit 0); 0 = it has not
};

struct Event {
    int64_t at = 0;
    std::string text;
};

// One run of the job: a start of every part together, and how it ended (`spiderflow jobs`).
struct Run {
    int number = 0;            // 1, then 2 after the job was queued again, ... (SPIDERFLOW_ATTEMPT)
    std::string layout;        // "tp=2 pp=2 dp=2"
    std::string placement;     // "alpha 2x2, beta 2x2"
    int64_t started_at = 0;    // every part running
    int64_t ended_at = 0;      // 0 = still running
    std::string end;           // why it ended
};

// What a job asked for should a part fail for a reason that is not its user's (--llm-on-failure,
// --llm-replan; spiderflow.conf gives the defaults).
struct FailurePolicy {
    int requeues = 0;          // runs after a failure before the job ends; 0 = end at the first
    bool any_layout = false;   // a new plan may change tp and pp, not only the replicas
};

struct XJob {
    std::string id;            // "HOME:JOBID": the home cluster and its held job
    uint64_t seq = 0;          // arrival order at the broker: the total order of decisions
    std::string user;          // mapped by name on every cluster
    std::string account;
    std::string home;          // the cluster it was submitted on
    int64_t time_limit_s = 0;  // each part's time limit, and its reservation's length
    std::string script;        // the batch script every part runs (no shared file system across sites)
    // sbatch's own job on the home cluster, held there: it becomes the home part in the first
    // attempt (the agent releases it into its reservation) instead of a job the agent submits.
    // 0 = every part is submitted by its agent.
    uint32_t home_job = 0;
    // The plan's SPIDERFLOW_* settings (degrees, the plan, the links crossed): every part's steps
    // get them, as the home job got them from job_submit.
    std::vector<std::pair<std::string, std::string>> step_env;
    bool one_task_per_node = false;  // one launcher task per node (torchrun), else one task per GPU
    int master_port = 0;       // the rendezvous port, the same in every part (set on arrival)
    std::vector<Part> parts;   // in plan order: part 0 holds rank 0
    XJobState state = XJobState::Queued;
    int attempt = 0;           // bumps whenever a new common start is sought
    int requeues = 0;          // times a missed start barrier queued it again
    FailurePolicy on_failure;
    int failure_requeues = 0;  // times a failed part queued it again
    // What the failures so far took out: planned around when the job is planned again.
    std::vector<std::string> lost_clusters;  // silent past the grace time
    std::vector<std::string> lost_nodes;     // "cluster:node" of parts that ended NODE_FAIL
    int64_t replan_at = 0;     // queued after a failure: planned again from then on; 0 = not to plan
    std::vector<Run> runs;
    // Parts of earlier runs still to confirm ended or release their reservations (a cluster that
    // was silent when the job was planned anew): ordered as parts parts.size() + i.
    std::vector<Part> retired;
    int64_t submitted_at = 0;
    int64_t seeking_since = 0; // when it left the queue to seek a common start (the give-up bound's origin)
    int64_t not_before = 0;    // no common start earlier than this
    int64_t start_at = 0;      // the common start of the current attempt
    int64_t state_since = 0;
    std::string reason;        // why it failed or is ending
    std::string setback;       // why the last attempt at a common start failed (for the give-up message)
    bool requeue = false;      // ending only to be queued again
    std::vector<Event> events; // what happened, for `spiderflow jobs` and the home job's output
};

const char* state_name(XJobState s);
// The inverse of state_name; false for an unknown name.
bool state_from_name(const std::string& name, XJobState* out);
bool finished(XJobState s);
// The run the job is in or seeks: 1 + every time it was queued again.
int run_number(const XJob& job);

// The world's size and each part's first rank: part k's ranks follow every earlier part's.
int world_size(const XJob& job);
int first_rank(const XJob& job, size_t part);
// Where every part meets: rank 0's node (part 0's first, at its cluster's address for other
// sites) and the job's port; empty until part 0 is reserved.
std::string rendezvous(const XJob& job);
// Something of this part is still to be done on its cluster: its job to end, a reservation to go.
bool part_pending(const Part& p);
// The part's job started in this attempt: seen running, or completed, which it cannot without
// having run (a script of seconds starts and ends between two looks of its agent).
bool part_started(const Part& p);
// The held home job still stands in for the home part: the first attempt's, before any requeue.
bool uses_home_job(const XJob& job, size_t part);

// Names the agents give what they create for part k in the current attempt, fixed by the job so
// that an agent repeating an order (after a restart) finds what it made the first time:
// "spiderflow-oregon_1234-a2-p1" for the reservation and the part's Slurm job alike.
std::string part_tag(const XJob& job, size_t part);

}  // namespace spiderflow::coalloc
