// Co-allocation of cross-site jobs by advance reservation, the way grid co-allocators did
// (KOALA, GUR, HARC): ask every part's cluster when it could start (Slurm's will-run answer),
// pick the latest of those as the common start, have every cluster reserve its part's nodes at
// that time, then submit each part into its reservation. A cluster that cannot reserve sends
// the job back to ask again for a later time; past a bound it gives up with the reason.
//
// No hold-and-wait: decisions happen in one total order (the job's arrival, `seq`), and a job
// does not start negotiating while an earlier job that shares a cluster with it is still
// negotiating or reserving. Once the earlier job's reservations exist, Slurm's will-run answers
// for the later job already step around them. So competing jobs neither deadlock nor starve.
//
// The co-allocator only decides. Orders are derived from the jobs' states (level-triggered):
// asking twice gives the same orders, so nothing is lost when an agent or the broker restarts
// and the store gives the jobs back. Every report names the attempt it answers; a report for an
// earlier attempt is ignored. Time is passed in (`now`, seconds), never read, so tests and the
// simulator drive it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "services/coalloc/xjob.h"

namespace spiderflow::coalloc {

struct Policy {
    int64_t lead_s = 30;             // a common start at least this far ahead: time to reserve everywhere
    int64_t retry_after_s = 60;      // after a refused reservation, ask again from start + this
    int64_t give_up_after_s = 3600;  // no common start found by then: the job fails, saying why
    int64_t barrier_s = 300;         // every part running within this of the common start
    // A part whose job completed (exit 0) while others still run: past this the others are
    // ended, since their ranks wait on peers that are gone (a final save may take a while).
    int64_t completion_grace_s = 600;
    int max_requeues = 2;            // missed barriers before the job fails
    // A job queued again after a failure is planned again this long after its last part ended:
    // one agent interval, for every site's agent to publish its nodes as they are now (the nodes
    // a part lost are named in its end already: NODE_FAIL, not responding, or not confirmed
    // within part_end_grace). brokerd.conf requeue_settle.
    int64_t replan_settle_s = 5;
    int64_t silent_after_s = 300;    // a cluster not heard from for this long ends its jobs' other parts
    // MASTER_PORT of a job: base + its arrival number % span, the same in every part. Apart from
    // the sites' own range (spiderflow.conf master_port_base, 29500 + job id % 1000), so a
    // cross-site job never meets a one-cluster job's port on a shared node.
    int master_port_base = 28500;
    int master_port_span = 1000;
    // Finished jobs stay for `spiderflow jobs` this long, and at most this many of them (the
    // newest): the broker's memory and every listing grow with them (brokerd.conf keep_finished_s,
    // keep_finished).
    int64_t keep_finished_s = 86400;
    int keep_finished = 1000;
};

enum class OrderKind { WillRun, Reserve, Release, Submit, Cancel };
const char* order_name(OrderKind k);
bool order_from_name(const std::string& name, OrderKind* out);

// What one cluster's agent is to do for one part.
struct Order {
    OrderKind kind = OrderKind::WillRun;
    std::string xjob;
    size_t part = 0;
    int attempt = 0;
    std::string user, account;
    int nodes = 0, gpus_per_node = 0;
    int64_t not_before = 0;        // WillRun: the earliest start worth reporting
    int64_t start_at = 0;          // Reserve, Submit
    int64_t duration_s = 0;        // Reserve: the reservation's length; Submit: the time limit
    std::string reservation;       // Reserve: the name to create; Release: which one; Submit: into which
    std::string job_name;          // Submit: the part's Slurm job name, so an agent that restarts finds it
    std::string script;            // Submit: the batch script
    uint32_t job_id = 0;           // Cancel: the part's job (0 = it has none yet)
    int world_size = 0, first_rank = 0;
    std::string master_node;       // Submit: rank 0's node (part 0's first reserved node), at the
                                   // address its cluster gave for other sites (its name otherwise)
    int master_port = 0;           // Submit: the rendezvous port, the same in every part
    std::string reason;            // Cancel: why, for the part's output
    uint32_t held_job = 0;         // Submit: release this held job (sbatch's, on the home cluster) instead
    std::vector<std::pair<std::string, std::string>> step_env;  // Submit: the plan's SPIDERFLOW_* settings
    bool one_task_per_node = false;  // Submit
};

// Refused: the cluster will never run this part (a user it does not know or allow, a request it
// cannot hold): the job fails at once, with the cluster's reason.
enum class ReportKind { Offer, Reserved, ReserveFailed, Released, Submitted, Running, Ended, Refused };
const char* report_name(ReportKind k);
bool report_from_name(const std::string& name, ReportKind* out);

// What an agent says about one part.
// How an Ended report starts when the agent ended the part on a Cancel order ("cancelled: WHY").
inline constexpr const char* kCancelledByBroker = "cancelled: ";

struct Report {
    ReportKind kind = ReportKind::Offer;
    std::string xjob;
    size_t part = 0;
    int attempt = 0;
    int64_t earliest_start = 0;      // Offer
    std::string reservation;         // Reserved, ReserveFailed (the attempted name), Released
    std::vector<std::string> nodes;  // Reserved
    std::string address;             // Reserved: the first node's address other sites reach (MASTER_ADDR)
    uint32_t job_id = 0;             // Submitted, Running, Ended
    bool completed = false;          // Ended: the part's job finished its work (exit 0)
    // Ended: its batch script failed, and its job still runs, waiting to be told the verdict
    // (a Cancel order, whose reason the agent prints on its output).
    bool still_running = false;
    // Ended: nodes of the part that never confirmed its end (the agent's part_end_grace passed):
    // lost for the job's next plan.
    std::vector<std::string> lost_nodes;
    std::string reason;              // ReserveFailed, Ended, Refused
};

// Plans a job queued again after a failure on the federation as it is now, without what failed
// (job.lost_clusters, job.lost_nodes), and sets its parts' specs (plan order) and step_env.
// Returns why it cannot (the job then fails with that reason); empty when planned. Without one,
// a requeued job runs again on the parts it had.
using Replanner = std::function<std::string(XJob& job)>;

class Coallocator {
public:
    explicit Coallocator(Policy policy = {});
    void set_replanner(Replanner replanner) { replanner_ = std::move(replanner); }

    // A new cross-site job (state, seq and attempt are set here). Throws std::invalid_argument
    // on a malformed one: an empty or taken id, no or one part, a cluster twice, sizes below 1.
    const XJob& submit(XJob job, int64_t now);
    // A job as the store held it, after a broker restart; keeps seq order.
    void restore(XJob job);

    // An agent's report about a part on `cluster`. False when ignored: an unknown job or part,
    // a part on another cluster, an earlier attempt, or a report that makes no sense now.
    bool report(const std::string& cluster, const Report& r, int64_t now);
    // Ends every part (scancel of the home job, `spiderflow cancel`). False for an unknown or
    // finished job.
    bool cancel(const std::string& id, const std::string& reason, int64_t now);
    // The decisions time brings: negotiations started in order, common starts picked, the start
    // barrier enforced, attempts given up, parts ended when a cluster went silent (`last_seen`:
    // when each cluster's agent last called; clusters absent from it count as heard now).
    // Returns the ids of the jobs that changed, for the store.
    std::vector<std::string> step(int64_t now, const std::map<std::string, int64_t>& last_seen);

    // What `cluster`'s agent is to do now, in job order.
    std::vector<Order> orders_for(const std::string& cluster) const;

    const std::map<std::string, XJob>& jobs() const { return jobs_; }
    // Every job in arrival order (seq): the order decisions are made and orders and lists given.
    std::vector<const XJob*> by_arrival() const;
    const XJob* find(const std::string& id) const;
    // Forgets finished jobs that ended more than policy.keep_finished_s before `now`, and the
    // oldest beyond the newest policy.keep_finished; never one whose parts or reservations an
    // agent still has to end (the store keeps them as long as it likes). Returns their ids.
    std::vector<std::string> forget_finished(int64_t now);

private:
    void move(XJob& job, XJobState to, int64_t now, const std::string& why);
    // MASTER_PORT of the job that arrived `seq`-th: the same in every part.
    int port_for(uint64_t seq) const;
    void start_negotiating(XJob& job, int64_t now);
    void end_all(XJob& job, int64_t now, const std::string& why, bool requeue);
    // The transitions that reports alone bring (every offer in, every part reserved, ...).
    void advance(XJob& job, int64_t now);
    // The time-driven ones.
    void check_time(XJob& job, int64_t now, const std::map<std::string, int64_t>& last_seen);
    // A failed run ended by a cause not the user's, with runs left: queued again to be planned anew.
    bool requeue_after_failure(XJob& job, int64_t now);
    // The queued job planned again (replanner_) once its settle time passed; false while it waits.
    bool ready_to_negotiate(XJob& job, int64_t now);
    bool blocked_by_earlier(const XJob& job) const;
    std::vector<XJob*> in_order();
    void order_part(const XJob& job, size_t k, std::vector<Order>* out) const;

    Policy policy_;
    Replanner replanner_;
    std::map<std::string, XJob> jobs_;
    uint64_t next_seq_ = 1;
};

}  // namespace spiderflow::coalloc
