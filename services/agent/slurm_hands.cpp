// The agent's hands on slurmctld through libslurm: will-run, reservations, batch submission as
// the part's user, cancel, and the part jobs by their comment. The agent runs as root or
// SlurmUser, which Slurm lets create reservations and submit for another user.
#include "services/agent/slurm_hands.h"

#include "services/slurm_api/slurm_api.h"

extern "C" {
// Exported by libslurm (22.05 to 26.05) but declared only in its internal headers.
void slurm_free_will_run_response_msg(will_run_response_msg_t* msg);
char* slurm_job_state_string(uint32_t state);
}

#include <grp.h>
#include <pwd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cerrno>
#include <cstdlib>
#include <memory>
#include <optional>
#include <vector>

#include "common/util/utf8_prefix.h"
#include "services/agent/slurm_observer.h"
#include "services/coalloc/end_causes.h"
#include "services/launch/launch_contract.h"
#include "services/probe/probe_protocol.h"
#include "services/slurmjob/hostlist.h"
#include "services/slurmjob/part_comment.h"
#include "services/slurmjob/plan_summary.h"

namespace spiderflow::agent {
namespace {

struct Account {
    uid_t uid;
    gid_t gid;
    std::string home;
};

// The part's user by name on this cluster: identities are mapped by name across sites.
Account account_of(const std::string& user, const std::string& cluster, long min_uid) {
    std::vector<char> buf(16384);
    passwd pw{};
    passwd* found = nullptr;
    if (getpwnam_r(user.c_str(), &pw, buf.data(), buf.size(), &found) != 0 || found == nullptr) {
        throw PartRefused("no user '" + user + "' on cluster " + cluster);
    }
    if (static_cast<long>(pw.pw_uid) < min_uid) {
        throw PartRefused("user '" + user + "' (uid " + std::to_string(pw.pw_uid) + ") may not run cross-site parts on " +
                          cluster + ": below part_min_uid " + std::to_string(min_uid) + " (agent.conf)");
    }
    return {pw.pw_uid, pw.pw_gid, pw.pw_dir != nullptr ? pw.pw_dir : "/"};
}

uint32_t minutes(int64_t seconds) { return static_cast<uint32_t>((seconds + 59) / 60); }

// A job description for the part: its user, nodes, GPUs per node and time limit.
void describe_part(job_desc_msg_t& d, const coalloc::Order& o, const Account& a, std::string& gres) {
    slurm_init_job_desc_msg(&d);
    d.user_id = a.uid;
    d.group_id = a.gid;
    d.min_nodes = d.max_nodes = static_cast<uint32_t>(o.nodes);
    d.time_limit = minutes(o.duration_s);
    // No file system is shared across sites: each part starts in its user's home directory here
    // (and from 24.11 on slurmctld refuses even a will-run without a working directory).
    d.work_dir = const_cast<char*>(a.home.c_str());
    if (o.gpus_per_node > 0) {
        gres = "gres:gpu:" + std::to_string(o.gpus_per_node);
        d.tres_per_node = gres.data();
    }
    if (!o.account.empty()) d.account = const_cast<char*>(o.account.c_str());
}

// The name of `uid` here; empty when it has none.
std::string user_name(uid_t uid) {
    std::vector<char> buf(16384);
    passwd pw{};
    passwd* found = nullptr;
    if (getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) != 0 || found == nullptr) return "";
    return pw.pw_name;
}

// A job description that changes job `id` only where set.
bool unreachable(int err) { return err == SLURM_COMMUNICATIONS_CONNECTION_ERROR || err == SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR; }

// slurm_update_job: throws SlurmUnavailable when slurmctld did not answer; Slurm's reason when it
// refused, "" when done.
std::string update_job(job_desc_msg_t& d) {
    if (slurm_update_job(&d) == SLURM_SUCCESS) return "";
    if (unreachable(errno)) throw SlurmUnavailable("slurm_update_job " + std::to_string(slurm_api::job_id_of(d)) + ": " + slurm_api::last_error());
    return slurm_api::last_error();
}

// Ends a job; one that ended already, or is gone, is no error.
void kill_job(uint32_t job_id) {
    if (slurm_api::kill_job(job_id, SIGKILL, 0) != SLURM_SUCCESS) {
        const int err = errno;
        if (err != ESLURM_ALREADY_DONE && err != ESLURM_INVALID_JOB_ID) {
            throw SlurmUnavailable("slurm_kill_job " + std::to_string(job_id) + ": " + slurm_api::last_error());
        }
    }
}

// Slurm's final states that mean the part did its work.
bool ended_state(uint32_t s) { return (s & JOB_STATE_BASE) >= JOB_COMPLETE; }

// Every job Slurm holds, each turned into a T by `read` (nullopt: not one of ours); the one place
// that loads the list and frees it, whatever `read` does. Throws SlurmUnavailable when Slurm
// cannot be asked.
template <class T, class Read>
std::vector<T> read_jobs(Read read) {
    job_info_msg_t* jobs = nullptr;
    if (slurm_load_jobs(0, &jobs, SHOW_ALL) != SLURM_SUCCESS) throw SlurmUnavailable("slurm_load_jobs: " + slurm_api::last_error());
    const std::unique_ptr<job_info_msg_t, void (*)(job_info_msg_t*)> owned(jobs, slurm_free_job_info_msg);
    std::vector<T> out;
    for (uint32_t i = 0; i < jobs->record_count; ++i)
        if (std::optional<T> t = read(jobs->job_array[i])) out.push_back(std::move(*t));
    return out;
}

// The nodes of `list` that have not confirmed a job's end (still completing, or not answering),
// into `unconfirmed`; those Slurm marks not responding or down also into `unresponsive`: slurmctld
// sets that flag once its message with the job's end to a node's slurmd gives up (about
// MessageTimeout), so a lost node shows it seconds after the cancel, not SlurmdTimeout later.
void unconfirmed_nodes(const std::string& list, std::vector<std::string>* unconfirmed, std::vector<std::string>* unresponsive) {
    std::vector<std::string> nodes;
    try {
        nodes = slurmjob::expand_hostlist(list);
    } catch (const std::exception&) {
        return;
    }
    for (std::string name : nodes) {
        node_info_msg_t* info = nullptr;
        if (slurm_load_node_single(&info, name.data(), SHOW_ALL) != SLURM_SUCCESS || info == nullptr) continue;
        if (info->record_count > 0) {
            const uint32_t s = info->node_array[0].node_state;
            const bool silent = (s & NODE_STATE_NO_RESPOND) != 0 || (s & NODE_STATE_BASE) == NODE_STATE_DOWN;
            if (silent || (s & NODE_STATE_COMPLETING) != 0) unconfirmed->push_back(name);
            if (silent) unresponsive->push_back(name);
        }
        slurm_free_node_info_msg(info);
    }
}

}  // namespace

LibslurmHands::LibslurmHands(std::string cluster, long min_uid, std::string wan_address)
    : cluster_(std::move(cluster)), min_uid_(min_uid), wan_address_(std::move(wan_address)) {}

std::string LibslurmHands::address_of(const std::string& node) {
    std::string node_addr = node;
    if (wan_address_.find("%a") != std::string::npos) {
        node_info_msg_t* info = nullptr;
        std::string name = node;
        if (slurm_load_node_single(&info, name.data(), SHOW_ALL) != SLURM_SUCCESS || info == nullptr) {
            throw SlurmUnavailable("slurm_load_node_single " + node + ": " + slurm_api::last_error());
        }
        if (info->record_count > 0 && info->node_array[0].node_addr != nullptr && *info->node_array[0].node_addr) {
            node_addr = info->node_array[0].node_addr;
        }
        slurm_free_node_info_msg(info);
    }
    std::string out;
    for (size_t i = 0; i < wan_address_.size(); ++i) {
        if (wan_address_[i] == '%' && i + 1 < wan_address_.size() && (wan_address_[i + 1] == 'n' || wan_address_[i + 1] == 'a')) {
            out += wan_address_[i + 1] == 'n' ? node : node_addr;
            ++i;
        } else {
            out += wan_address_[i];
        }
    }
    return out;
}

int64_t LibslurmHands::will_run(const coalloc::Order& o) {
    const Account a = account_of(o.user, cluster_, min_uid_);
    job_desc_msg_t d;
    std::string gres;
    describe_part(d, o, a, gres);
    d.begin_time = static_cast<time_t>(o.not_before);
    will_run_response_msg_t* answer = nullptr;
    if (slurm_job_will_run2(&d, &answer) != SLURM_SUCCESS || answer == nullptr) {
        // Not a refusal: Slurm 22.05 answers "Requested node configuration is not available"
        // while the nodes are held by another job's active reservation, and gives a start once it
        // is gone. Asked again next cycle; the broker's give-up bound ends a job that never gets one.
        throw SlurmUnavailable("slurm_job_will_run2 for " + std::to_string(o.nodes) + " nodes x " +
                               std::to_string(o.gpus_per_node) + " GPUs: " + slurm_api::last_error());
    }
    const int64_t start = static_cast<int64_t>(answer->start_time);
    slurm_free_will_run_response_msg(answer);
    return start;
}

std::vector<std::string> LibslurmHands::reserve(const coalloc::Order& o) {
    std::vector<std::string> nodes = reservation_nodes(o.reservation);
    if (!nodes.empty()) return nodes;  // made by an earlier try whose report was lost
    account_of(o.user, cluster_, min_uid_);
    resv_desc_msg_t r;
    slurm_init_resv_desc_msg(&r);
    std::string name = o.reservation, users = o.user;
    slurm_api::NodeCount count;
    r.name = name.data();
    r.start_time = static_cast<time_t>(o.start_at);
    r.duration = minutes(o.duration_s);
    slurm_api::set_node_count(r, count, static_cast<uint32_t>(o.nodes));
    r.users = users.data();
    char* made = slurm_create_reservation(&r);
    if (made == nullptr) {
        const int err = errno;
        if (unreachable(err)) {
            throw SlurmUnavailable("slurm_create_reservation: " + slurm_api::last_error());
        }
        if (err != ESLURM_RESERVATION_NAME_DUP) throw PartRefused(slurm_api::last_error());
    }
    slurm_api::free_reservation_name(made);
    nodes = reservation_nodes(o.reservation);
    if (nodes.empty()) throw PartRefused("reservation " + o.reservation + " holds no nodes");
    return nodes;
}

std::vector<std::string> LibslurmHands::reservation_nodes(const std::string& name) {
    reserve_info_msg_t* info = nullptr;
    if (slurm_load_reservations(0, &info) != SLURM_SUCCESS) throw SlurmUnavailable("slurm_load_reservations: " + slurm_api::last_error());
    std::vector<std::string> nodes;
    for (uint32_t i = 0; i < info->record_count; ++i) {
        const reserve_info_t& r = info->reservation_array[i];
        if (r.name != nullptr && name == r.name && r.node_list != nullptr) nodes = slurm_api::hostlist_names(r.node_list);
    }
    slurm_free_reservation_info_msg(info);
    return nodes;
}

std::vector<std::string> LibslurmHands::part_reservations() {
    reserve_info_msg_t* info = nullptr;
    if (slurm_load_reservations(0, &info) != SLURM_SUCCESS) throw SlurmUnavailable("slurm_load_reservations: " + slurm_api::last_error());
    std::vector<std::string> names;
    for (uint32_t i = 0; i < info->record_count; ++i) {
        const char* name = info->reservation_array[i].name;
        // The broker names every part's reservation spiderflow-ID-aN-pK (coalloc::reservation_name).
        if (name != nullptr && std::string(name).rfind("spiderflow-", 0) == 0) names.emplace_back(name);
    }
    slurm_free_reservation_info_msg(info);
    return names;
}

void LibslurmHands::release(const std::string& reservation) {
    std::string name = reservation;
    reservation_name_msg_t m{};
    m.name = name.data();
    if (slurm_delete_reservation(&m) != SLURM_SUCCESS && errno != ESLURM_RESERVATION_INVALID) {
        throw SlurmUnavailable("slurm_delete_reservation " + reservation + ": " + slurm_api::last_error());
    }
}

uint32_t LibslurmHands::submit(const coalloc::Order& o) {
    const Account a = account_of(o.user, cluster_, min_uid_);
    job_desc_msg_t d;
    std::string gres;
    describe_part(d, o, a, gres);
    std::string name = o.job_name, script = o.script, reservation = o.reservation;
    std::string comment = slurmjob::format_part_comment({o.xjob, o.part, o.attempt, ""});
    // One task per GPU (srun starts the ranks) or one per node (torchrun starts them), as the
    // home part was submitted.
    d.ntasks_per_node = static_cast<uint16_t>(o.one_task_per_node || o.gpus_per_node < 1 ? 1 : o.gpus_per_node);
    d.num_tasks = static_cast<uint32_t>(o.nodes) * d.ntasks_per_node;
    d.name = name.data();
    // Never requeued by Slurm (whatever JobRequeue says): a lost node ends the part NODE_FAIL at
    // once, and the broker requeues the whole job; a part pending again alone would keep its
    // peers waiting.
    d.requeue = 0;
    // The part's output under its name in the user's home here (sbatch's message says where),
    // not as slurm-<id>.out of a job id the user never saw.
    std::string out = a.home + "/" + o.job_name + ".out";
    if (!o.job_name.empty()) d.std_out = out.data();
    d.script = script.data();
    d.reservation = reservation.data();
    d.comment = comment.data();
    // One world across the parts: the launcher adds this part's first rank to its local ranks.
    std::vector<std::string> env = {
        "PATH=/usr/local/bin:/usr/bin:/bin",
        "HOME=" + a.home,
        "USER=" + o.user,
        std::string(env::kXJob) + "=" + o.xjob,
        std::string(env::kXJobPart) + "=" + std::to_string(o.part),
        std::string(env::kRankBase) + "=" + std::to_string(o.first_rank),
        std::string(env::kWorldSize) + "=" + std::to_string(o.world_size),
        "MASTER_ADDR=" + o.master_node,
        "MASTER_PORT=" + std::to_string(o.master_port),
        "WORLD_SIZE=" + std::to_string(o.world_size),
        std::string(env::kMasterAddr) + "=" + o.master_node,
        std::string(env::kMasterPort) + "=" + std::to_string(o.master_port),
    };
    // The plan's settings, as the home part got them from job_submit.
    for (const auto& [k, v] : o.step_env) env.push_back(k + "=" + v);
    std::vector<char*> envp;
    for (std::string& e : env) envp.push_back(e.data());
    d.environment = envp.data();
    d.env_size = static_cast<uint32_t>(envp.size());
    submit_response_msg_t* answer = nullptr;
    if (slurm_submit_batch_job(&d, &answer) != SLURM_SUCCESS || answer == nullptr) {
        const int err = errno;
        if (unreachable(err)) {
            throw SlurmUnavailable("slurm_submit_batch_job: " + slurm_api::last_error());
        }
        throw PartRefused("Slurm on " + cluster_ + " refused the part: " + slurm_api::last_error());
    }
    const uint32_t id = slurm_api::submitted_job_id(*answer);
    slurm_free_submit_response_response_msg(answer);
    return id;
}

void LibslurmHands::cancel(uint32_t job_id, const std::string& why) {
    // The user's output says why the part ended (scontrol notify: the batch script's stderr);
    // a job that is not running has no output to tell, and that is no error.
    std::string message = "spiderflow: " + why;
    (void)slurm_api::notify_job(job_id, message.data());
    // A job that never ran has no output: its comment (squeue %k, scontrol show job, sacct) says why.
    job_info_msg_t* info = nullptr;
    if (slurm_api::load_job(&info, job_id, SHOW_ALL) == SLURM_SUCCESS && info != nullptr) {
        const bool pending = info->record_count > 0 && (info->job_array[0].job_state & JOB_STATE_BASE) == JOB_PENDING;
        slurm_free_job_info_msg(info);
        if (pending) {
            std::string comment = utf8_prefix(message, 500);
            job_desc_msg_t d = slurm_api::update_of(job_id);
            d.comment = comment.data();
            (void)slurm_update_job(&d);
        }
    }
    kill_job(job_id);
}

std::vector<PartJob> LibslurmHands::part_jobs() {
    return read_jobs<PartJob>([&](const slurm_job_info_t& j) -> std::optional<PartJob> {
        PartJob p;
        slurmjob::PartComment c;
        if (j.comment == nullptr || !slurmjob::parse_part_comment(j.comment, &c)) return std::nullopt;
        p.xjob = c.xjob;
        p.part = c.part;
        p.attempt = c.attempt;
        p.job_id = j.job_id;
        const uint32_t base = j.job_state & JOB_STATE_BASE;
        if ((base == JOB_RUNNING || base == JOB_SUSPENDED) && !c.ended.empty()) {
            // Its batch script failed; the step waits for the verdict (the SPANK plugin), which
            // this agent's cancel prints on its output.
            p.state = PartJob::State::Ended;
            p.still_running = true;
            p.reason = "FAILED, " + c.ended;
        } else if (base == JOB_RUNNING || base == JOB_SUSPENDED) {
            p.state = PartJob::State::Running;
        } else if (base == JOB_PENDING && j.restart_cnt > 0) {
            // Slurm requeued it (JobRequeue=1 and a lost node, a requeueing preemption, scontrol
            // requeue): its peers cannot wait for it, so it ended for the cross-site job.
            p.state = PartJob::State::Ended;
            p.requeued = true;
            p.reason = std::string(coalloc::kRequeuedBySlurm) + " (restart " + std::to_string(j.restart_cnt) +
                       (j.state_desc != nullptr && *j.state_desc != '\0' ? ": " + std::string(j.state_desc) : "") + ")";
        } else if (ended_state(j.job_state) && (j.job_state & JOB_COMPLETING) != 0) {
            p.state = PartJob::State::Completing;
            if (j.nodes != nullptr) unconfirmed_nodes(j.nodes, &p.unconfirmed, &p.unresponsive);
        } else if (ended_state(j.job_state)) {
            p.state = PartJob::State::Ended;
            p.completed = base == JOB_COMPLETE && j.exit_code == 0;
            // The base state: Slurm's string for the whole state may name a flag instead.
            p.reason = slurm_job_state_string(base);
            if (WIFSIGNALED(j.exit_code)) {
                p.reason += ", signal " + std::to_string(WTERMSIG(j.exit_code));
            } else if (WEXITSTATUS(j.exit_code) != 0) {
                p.reason += ", exit code " + std::to_string(WEXITSTATUS(j.exit_code));
            }
        }
        return p;
    });
}

std::vector<HomeJob> LibslurmHands::home_jobs() {
    return read_jobs<HomeJob>([&](const slurm_job_info_t& j) -> std::optional<HomeJob> {
        slurmjob::PlanSummary s;
        // Released ones carry their place in the world (xjob=...) and are part jobs from then on.
        if (j.admin_comment == nullptr || !slurmjob::parse_plan_summary(j.admin_comment, &s) || s.parts.size() < 2 ||
            !s.xjob.empty()) {
            return std::nullopt;
        }
        HomeJob h;
        h.job_id = j.job_id;
        h.user = user_name(j.user_id);
        h.account = j.account != nullptr ? j.account : "";
        h.time_limit_s = j.time_limit == NO_VAL || j.time_limit == INFINITE ? 0 : static_cast<int64_t>(j.time_limit) * 60;
        h.tasks_per_node = j.ntasks_per_node != NO_VAL16 && j.ntasks_per_node != 0
                               ? j.ntasks_per_node
                               : (j.num_nodes > 0 ? static_cast<int>(j.num_tasks / j.num_nodes) : 0);
        h.summary = j.admin_comment;
        const uint32_t base = j.job_state & JOB_STATE_BASE;
        h.held = base == JOB_PENDING && j.priority == 0;
        h.ended = ended_state(j.job_state);
        if (h.ended) h.end_reason = slurm_job_state_string(base);
        if (h.user.empty() && !h.ended) return std::nullopt;  // a uid this host cannot name: nothing to map by
        return h;
    });
}

void LibslurmHands::take_over(uint32_t job_id) {
    job_desc_msg_t d = slurm_api::update_of(job_id);
    d.priority = 0;  // held already: as an operator's, the hold becomes an admin hold
    const std::string no = update_job(d);
    if (!no.empty()) throw std::runtime_error("cannot hold job " + std::to_string(job_id) + ": " + no);
}

std::string LibslurmHands::batch_script(uint32_t job_id) {
    char* text = nullptr;
    size_t size = 0;
    FILE* out = open_memstream(&text, &size);
    if (out == nullptr) throw std::runtime_error("open_memstream failed");
    const int rc = slurm_api::job_batch_script(out, job_id);
    std::fclose(out);
    std::string script(text != nullptr ? text : "", size);
    std::free(text);
    if (rc != SLURM_SUCCESS) throw SlurmUnavailable("slurm_job_batch_script " + std::to_string(job_id) + ": " + slurm_api::last_error());
    return script;
}

void LibslurmHands::start_held(const coalloc::Order& o) {
    job_info_msg_t* info = nullptr;
    if (slurm_api::load_job(&info, o.held_job, SHOW_ALL) != SLURM_SUCCESS || info == nullptr || info->record_count == 0) {
        if (info != nullptr) slurm_free_job_info_msg(info);
        throw SlurmUnavailable("slurm_load_job " + std::to_string(o.held_job) + ": " + slurm_api::last_error());
    }
    std::string summary = info->job_array[0].admin_comment != nullptr ? info->job_array[0].admin_comment : "";
    const uint32_t state = info->job_array[0].job_state;
    slurm_free_job_info_msg(info);
    if (ended_state(state)) throw PartRefused("the held job " + std::to_string(o.held_job) + " has ended");
    if ((state & JOB_STATE_BASE) != JOB_PENDING) return;  // released already, and started
    slurmjob::PlanSummary s;
    if (!slurmjob::parse_plan_summary(summary, &s)) throw PartRefused("job " + std::to_string(o.held_job) + " carries no plan");
    // Slurm lets nobody change a pending job's environment: the part's place in the world goes
    // into its AdminComment, where the SPANK plugin reads it at step start.
    if (s.xjob.empty()) {
        summary += slurmjob::format_rendezvous(o.xjob, static_cast<int>(o.part), o.first_rank, o.world_size, o.master_node,
                                               o.master_port);
    }
    std::string reservation = o.reservation, comment = slurmjob::format_part_comment({o.xjob, o.part, o.attempt, ""});
    job_desc_msg_t d = slurm_api::update_of(o.held_job);
    d.reservation = reservation.data();
    d.comment = comment.data();
    d.admin_comment = summary.data();
    if (const std::string no = update_job(d); !no.empty()) {
        throw PartRefused("Slurm on " + cluster_ + " would not move the held job into its reservation: " + no);
    }
    job_desc_msg_t release = slurm_api::update_of(o.held_job);
    release.priority = INFINITE;  // what `scontrol release` sends
    if (const std::string no = update_job(release); !no.empty()) {
        throw PartRefused("Slurm on " + cluster_ + " would not release the held job: " + no);
    }
}

void LibslurmHands::nudge(uint32_t job_id) {
    job_desc_msg_t d = slurm_api::update_of(job_id);
    // Refused (the job ended meanwhile) is no matter: the pass was for its start.
    (void)update_job(d);
}

uint32_t LibslurmHands::submit_probe(const std::string& name, const std::string& script) {
    // The site's own job: as the agent's user, one task on one node, for a few minutes; its
    // output on the node's /tmp (no file system is shared with the agent's host).
    job_desc_msg_t d;
    slurm_init_job_desc_msg(&d);
    d.user_id = ::getuid();
    d.group_id = ::getgid();
    d.min_nodes = d.max_nodes = 1;
    d.num_tasks = 1;
    d.time_limit = 5;
    std::string job_name = name, text = script, dir = "/tmp", out = probe::probe_job_output(name);
    d.name = job_name.data();
    d.script = text.data();
    d.work_dir = dir.data();
    d.std_out = out.data();
    std::string path = "PATH=/usr/local/bin:/usr/bin:/bin";
    char* envp[] = {path.data(), nullptr};
    d.environment = envp;
    d.env_size = 1;
    submit_response_msg_t* answer = nullptr;
    if (slurm_submit_batch_job(&d, &answer) != SLURM_SUCCESS || answer == nullptr) {
        throw SlurmUnavailable("submitting probe job " + name + ": " + slurm_api::last_error());
    }
    const uint32_t id = slurm_api::submitted_job_id(*answer);
    slurm_free_submit_response_response_msg(answer);
    return id;
}

std::vector<ProbeJob> LibslurmHands::probe_jobs() {
    return read_jobs<ProbeJob>([&](const slurm_job_info_t& j) -> std::optional<ProbeJob> {
        if (j.name == nullptr || std::string(j.name).rfind("spiderflow-probe-", 0) != 0 || j.user_id != ::getuid()) return std::nullopt;
        ProbeJob p;
        p.job_id = j.job_id;
        p.name = j.name;
        const uint32_t base = j.job_state & JOB_STATE_BASE;
        p.state = base == JOB_PENDING ? ProbeJob::State::Pending
                  : ended_state(j.job_state) ? ProbeJob::State::Ended
                                             : ProbeJob::State::Running;
        if (j.nodes != nullptr && *j.nodes != '\0') p.node = j.nodes;
        if (j.comment != nullptr) p.comment = j.comment;
        if (p.state == ProbeJob::State::Ended) p.reason = slurm_job_state_string(base);
        return p;
    });
}

void LibslurmHands::cancel_probe(uint32_t job_id) {
    kill_job(job_id);
}

}  // namespace spiderflow::agent
