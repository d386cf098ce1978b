// The agent's hands for cross-site jobs: every cycle it fetches this cluster's orders from the
// broker (GET /v1/clusters/NAME/orders), carries each out on the local slurmctld (will-run,
// reserve, release, submit the part as its user, cancel), watches the parts it started, and
// reports back in one POST. Orders are level-triggered and every action is safe to repeat
// (names fixed by the broker, a part found by its job comment before it is submitted again), so
// an agent that restarts or loses the broker picks up where it was. A site's allow-list decides
// which users may receive parts here.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "services/agent/agent_metrics.h"
#include "services/agent/start_nudges.h"
#include "services/broker_client/broker_client.h"
#include "services/coalloc/coallocator.h"
#include "services/slurmjob/spiderflow_conf.h"

namespace spiderflow::agent {

// Slurm said no for good (an unknown user, a request it cannot hold); the text says why.
class PartRefused : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A part's Slurm job as the agent sees it, found by its comment.
struct PartJob {
    uint32_t job_id = 0;
    std::string xjob;
    size_t part = 0;
    int attempt = 0;
    // Completing: Slurm ended it but its nodes have not all confirmed (a lost node holds a job
    // there until Slurm marks the node down): not ended yet for the broker.
    enum class State { Pending, Running, Ended, Completing } state = State::Pending;
    bool completed = false;  // ended with exit code 0
    std::string reason;      // Slurm's state and reason when it ended
    bool still_running = false;  // ended: its batch script failed, its job waits for the verdict
    // ended: Slurm queued it again itself (pending after it ran: coalloc::kRequeuedBySlurm); the
    // agent cancels it once the broker has the report, so it never runs alone later.
    bool requeued = false;
    std::vector<std::string> unconfirmed;  // completing: its nodes that have not confirmed the end
    // completing: those of them Slurm marks not responding or down (the job's end never reached
    // their slurmd: a lost node): lost at once, without waiting out part_end_grace.
    std::vector<std::string> unresponsive;
};

// A job job_submit planned across clusters and holds here until the broker starts its parts:
// its AdminComment names every cluster's part (plan_summary.h). Only jobs not yet released.
struct HomeJob {
    uint32_t job_id = 0;
    std::string user, account;
    int64_t time_limit_s = 0;   // 0 = none set (the partition's limit applies)
    int tasks_per_node = 0;
    std::string summary;        // the AdminComment job_submit wrote
    bool held = false;          // pending and held, as job_submit left it
    bool ended = false;         // cancelled (or failed) before it was released
    std::string end_reason;
};

// What the agent asks of its slurmctld. Every call may throw PartRefused (report it) or any
// other exception (slurmctld did not answer: try again next cycle).
class SlurmHands {
public:
    virtual ~SlurmHands() = default;
    // The earliest start Slurm gives a job like the part from `o.not_before` on.
    virtual int64_t will_run(const coalloc::Order& o) = 0;
    // Creates reservation `o.reservation` (or finds it made already); its nodes.
    virtual std::vector<std::string> reserve(const coalloc::Order& o) = 0;
    // How other sites reach `node` (MASTER_ADDR when it holds rank 0).
    virtual std::string address_of(const std::string& node) = 0;
    // Removes a reservation; one that is gone already is fine.
    virtual void release(const std::string& reservation) = 0;
    // Every reservation made for a cross-site part here (named by the broker, spiderflow-...).
    virtual std::vector<std::string> part_reservations() = 0;
    // Submits the part into its reservation as its user; its job id.
    virtual uint32_t submit(const coalloc::Order& o) = 0;
    // Ends a part; a running batch script is told `why` on its stderr first.
    virtual void cancel(uint32_t job_id, const std::string& why) = 0;
    // Every part job slurmctld still knows.
    virtual std::vector<PartJob> part_jobs() = 0;
    // Held home jobs (sbatch's cross-site jobs) not yet released, and those that ended so.
    virtual std::vector<HomeJob> home_jobs() = 0;
    // Turns job_submit's user hold into an admin hold: the user cannot start the home part alone.
    virtual void take_over(uint32_t job_id) = 0;
    virtual std::string batch_script(uint32_t job_id) = 0;
    // Releases held job `o.held_job` into its reservation as the part `o` names (its comment and
    // its place in the world); repeating it is harmless.
    virtual void start_held(const coalloc::Order& o) = 0;
    // Asks for a scheduling pass now, by an update of job `job_id` that changes nothing (slurmctld
    // schedules within about a second of any job update): a part whose reservation has just begun
    // starts then, not at slurmctld's next look at its reservations (start_nudges.h).
    virtual void nudge(uint32_t job_id) = 0;
};

struct PartPolicy {
    std::set<std::string> users;     // may receive parts here; empty = any user Slurm knows
    std::set<std::string> accounts;  // the same for accounts
    // The spiderflow.conf this cluster's plugins read: while it does not parse, SpiderFlow is off
    // here (the step side would start a part's tasks without ranks), so no part is taken.
    std::string site_conf;
    double end_grace_s = 60;  // agent.conf part_end_grace
};

class PartFence;

class PartRunner {
public:
    using Log = std::function<void(const std::string&)>;
    // fence: told of every order read, and asked how a part it ended ended (part_fence.h); none
    // in tests that do not need it.
    PartRunner(std::string cluster, BrokerClient client, SlurmHands& hands, PartPolicy policy, Log log,
               PartFence* fence = nullptr);

    // One round: orders in, actions, reports out. Never throws; failures are logged and the next
    // round tries again.
    void cycle();
    // Between rounds, called every 50-100 ms: nudges the scheduler at a part's common start
    // (start_nudges.h), and runs the round again kBusyRoundS after the last one while a
    // cross-site job moves on this cluster (the last round told the broker something, a part is
    // at its common start, or a part it cancelled has not confirmed its end yet), so that one
    // stage of a start or a requeue follows the last within a second, not an agent interval
    // later. Never throws.
    void tick();
    static constexpr double kBusyRoundS = 1.0;
    // Goes on with agent.conf read again (SIGHUP), remembering what it told the broker and which
    // parts it is ending.
    void reconfigure(BrokerClient client, PartPolicy policy);

    // The round without the broker: carries `orders` out and adds what changed in the part jobs
    // since the broker last acknowledged. Throws when slurmctld cannot list the jobs.
    std::vector<coalloc::Report> round(const std::vector<coalloc::Order>& orders);
    // The broker has these reports: part job states among them are not sent again.
    void acknowledge(const std::vector<coalloc::Report>& reports);
    // The part jobs by state as the last round saw them, and those Slurm requeued (metrics).
    const PartFigures& figures() const { return figures_; }

private:
    std::vector<coalloc::Report> carry_out(const std::vector<coalloc::Order>& orders,
                                           const std::vector<PartJob>& jobs);
    std::vector<coalloc::Report> watch(const std::vector<PartJob>& jobs);
    // Cancels a part Slurm requeued itself, once the broker has its end.
    void end_requeued(const PartJob& j);
    // Empty when allowed; otherwise why not.
    std::string refusal(const coalloc::Order& o) const;
    // Empty while this cluster's SpiderFlow config parses; otherwise why no part is taken.
    std::string site_off();

    std::string cluster_;
    BrokerClient client_;
    SlurmHands& hands_;
    PartPolicy policy_;
    Log log_;
    PartFence* fence_;
    slurmjob::ConfErrorWatch site_conf_;
    std::set<std::pair<uint32_t, int>> reported_;  // (job id, state) already told to the broker
    // Jobs this agent cancelled on the broker's order, with the order's reason: their end is
    // reported once Slurm has them ended on every node, so a requeued job is planned anew only
    // when a lost node is known lost (the job stays completing until Slurm marks the node down).
    struct Cancelling {
        std::string reason;
        std::chrono::steady_clock::time_point since;
    };
    std::map<uint32_t, Cancelling> cancelling_;
    PartFigures figures_;
    std::set<uint32_t> requeued_seen_;  // part jobs counted in figures_.requeued_by_slurm
    void count(const std::vector<PartJob>& jobs);
    StartNudges nudges_;
    bool busy_ = false;  // tick() runs the next round soon
    std::chrono::steady_clock::time_point last_round_{};
};

}  // namespace spiderflow::agent
