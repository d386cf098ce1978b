#include "common/coflow/simulator.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <queue>
#include <unordered_map>

#include "common/coflow/allocation.h"
#include "common/util/errors.h"

namespace spiderflow::coflow {

double JobRecord::mean_iteration_s() const {
    if (iteration_end_s.empty()) return 0;
    return (iteration_end_s.back() - arrival_s) / static_cast<double>(iteration_end_s.size());
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Two events closer than this (seconds) are one event: avoids zero-length steps from rounding.
constexpr double kTimeEps = 1e-12;

enum class EventType { trace_arrival, job_arrival, task_done, coflow_sent, coflow_done };

struct Event {
    double t;
    long seq;                        // FIFO among equal times, for determinism
    EventType type;
    int a = 0, b = 0, c = 0;         // trace index | job, iteration, task | coflow uid
    bool operator>(const Event& o) const { return t != o.t ? t > o.t : seq > o.seq; }
};

struct CoflowState {
    int record_id = 0;
    int job = -1, iteration = 0, task = -1;
    CoflowKind kind = CoflowKind::generic;
    int micro_batch = 0, layer = 0;
    double release_s = 0;
    double bytes = 0, sent = 0;
    int pending = 0;                 // flows still sending
    double last_delivery = 0;
    long view_epoch = -1;            // build_view() pass that last gave it a slot
    int view_slot = 0;
};

struct FlowState {
    int coflow_uid = 0;
    double latency = 0;
    CoflowState* coflow = nullptr;   // stable: unordered_map nodes do not move
};

struct IterState {
    std::vector<int> pending;        // unmet dependencies per task
    int tasks_left = 0;
};

struct JobState {
    const PeriodicJob* spec = nullptr;
    std::vector<std::vector<int>> succ;       // same-iteration dependents
    std::vector<std::vector<int>> next_succ;  // next-iteration dependents
    std::vector<std::vector<int>> sent_succ;  // same-iteration dependents on a coflow's last byte sent
    std::map<int, IterState> iters;
};

class Sim {
public:
    Sim(const Network& net, const Workload& w, Scheduler& s, const SimOptions& o)
        : net_(net), work_(w), sched_(s), opt_(o) {}

    SimResult run() {
        const auto t0 = std::chrono::steady_clock::now();
        for (size_t i = 0; i < work_.coflows.size(); ++i)
            push(work_.coflows[i].arrival_s, EventType::trace_arrival, static_cast<int>(i));
        jobs_.resize(work_.jobs.size());
        progress_.resize(work_.jobs.size());
        for (size_t j = 0; j < work_.jobs.size(); ++j) {
            const PeriodicJob& spec = work_.jobs[j];
            JobState& js = jobs_[j];
            js.spec = &spec;
            js.succ.assign(spec.tasks.size(), {});
            js.next_succ.assign(spec.tasks.size(), {});
            js.sent_succ.assign(spec.tasks.size(), {});
            for (size_t t = 0; t < spec.tasks.size(); ++t) {
                for (int d : spec.tasks[t].deps) js.succ[d].push_back(static_cast<int>(t));
                for (int d : spec.tasks[t].sent_deps) js.sent_succ[d].push_back(static_cast<int>(t));
                for (int d : spec.tasks[t].prev_deps) js.next_succ[d].push_back(static_cast<int>(t));
            }
            JobProgress& p = progress_[j];
            p.iterations_total = spec.iterations;
            p.micro_batches = spec.micro_batches;
            p.wan_bytes_per_iteration = spec.wan_bytes_per_iteration;
            p.compute_s_per_iteration = spec.compute_s_per_iteration;
            p.period_s = spec.period_s;
            p.arrival_s = spec.arrival_s;
            JobRecord rec;
            rec.name = spec.name;
            rec.arrival_s = spec.arrival_s;
            result_.jobs.push_back(rec);
            push(spec.arrival_s, EventType::job_arrival, static_cast<int>(j));
        }
        loop();
        result_.stats.sim_end_s = now_;
        result_.stats.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return std::move(result_);
    }

private:
    const Network& net_;
    const Workload& work_;
    Scheduler& sched_;
    SimOptions opt_;
    std::chrono::steady_clock::time_point started_, last_progress_;
    double now_ = 0;
    long seq_ = 0;
    int next_uid_ = 0;
    int next_flow_id_ = 0;
    std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
    std::unordered_map<int, CoflowState> coflows_;
    std::vector<ActiveFlow> flows_;
    std::vector<FlowState> flow_meta_;
    std::vector<JobState> jobs_;
    std::vector<JobProgress> progress_;
    std::vector<ActiveCoflow> view_coflows_;
    std::vector<ActiveCoflow> view_pool_;   // build_view() scratch, reused across events
    long view_epoch_ = 0;
    SimResult result_;

    void push(double t, EventType type, int a, int b = 0, int c = 0) { events_.push({t, seq_++, type, a, b, c}); }

    // Starts a coflow's flows; returns its uid.
    int start_coflow(const std::vector<FlowSpec>& specs, CoflowState st) {
        const int uid = next_uid_++;
        st.release_s = now_;
        for (const FlowSpec& fs : specs) {
            if (fs.bytes <= 0 || fs.src == fs.dst) continue;
            const std::vector<int>& path = net_.route(fs.src, fs.dst, fs.fast_route);
            if (path.empty())
                throw InputError("workload", 0, "flow " + std::to_string(fs.src) + ">" + std::to_string(fs.dst),
                                 "endpoints unknown or unreachable in the network");
            ActiveFlow f;
            f.id = next_flow_id_++;
            f.path = &path;
            f.bytes = f.remaining = fs.bytes;
            flows_.push_back(f);
            flow_meta_.push_back({uid, net_.route_latency_s(fs.src, fs.dst, fs.fast_route), nullptr});
            st.bytes += fs.bytes;
            ++st.pending;
            ++result_.stats.flow_events;
        }
        result_.stats.bytes_offered += st.bytes;
        st.last_delivery = now_;
        const bool empty = st.pending == 0;
        CoflowState* stored = &coflows_.emplace(uid, st).first->second;
        for (size_t i = flow_meta_.size() - static_cast<size_t>(st.pending); i < flow_meta_.size(); ++i)
            flow_meta_[i].coflow = stored;
        if (empty) {
            push(now_, EventType::coflow_sent, uid);
            push(now_, EventType::coflow_done, uid);
        }
        return uid;
    }

    IterState& ensure_iter(int j, int k) {
        JobState& js = jobs_[j];
        auto it = js.iters.find(k);
        if (it != js.iters.end()) return it->second;
        IterState& is = js.iters[k];
        const auto& tasks = js.spec->tasks;
        is.pending.resize(tasks.size());
        is.tasks_left = static_cast<int>(tasks.size());
        for (size_t t = 0; t < tasks.size(); ++t)
            is.pending[t] = static_cast<int>(tasks[t].deps.size() + tasks[t].sent_deps.size() +
                                             (k > 0 ? tasks[t].prev_deps.size() : 0));
        return is;
    }

    void release_task(int j, int k, int t) {
        const PeriodicJob& spec = *jobs_[j].spec;
        // The next iteration must count this iteration's completions from now on.
        if (k + 1 < spec.iterations) ensure_iter(j, k + 1);
        const Task& task = spec.tasks[t];
        if (task.type == Task::Type::compute) {
            push(now_ + task.duration_s, EventType::task_done, j, k, t);
            return;
        }
        CoflowState st;
        st.record_id = next_uid_;
        st.job = j;
        st.iteration = k;
        st.task = t;
        st.kind = task.kind;
        st.micro_batch = task.micro_batch;
        st.layer = task.layer;
        start_coflow(task.flows, st);
    }

    void task_done(int j, int k, int t) {
        JobState& js = jobs_[j];
        const PeriodicJob& spec = *js.spec;
        IterState& is = js.iters.at(k);
        for (int s : js.succ[t])
            if (--is.pending[s] == 0) release_task(j, k, s);
        if (k + 1 < spec.iterations) {
            IterState& nx = ensure_iter(j, k + 1);
            for (int s : js.next_succ[t])
                if (--nx.pending[s] == 0) release_task(j, k + 1, s);
        }
        IterState& cur = js.iters.at(k);   // references into the map stay valid, but be explicit
        if (--cur.tasks_left == 0) {
            js.iters.erase(k);
            JobRecord& rec = result_.jobs[j];
            rec.iteration_end_s.push_back(now_);
            ++progress_[j].iterations_done;
            if (static_cast<int>(rec.iteration_end_s.size()) == spec.iterations) rec.finish_s = now_;
        }
    }

    void handle(const Event& e) {
        switch (e.type) {
            case EventType::trace_arrival: {
                const TraceCoflow& tc = work_.coflows[e.a];
                CoflowState st;
                st.record_id = tc.id;
                start_coflow(tc.flows, st);
                break;
            }
            case EventType::job_arrival: {
                IterState& is = ensure_iter(e.a, 0);
                const std::vector<int> pending = is.pending;
                for (size_t t = 0; t < pending.size(); ++t)
                    if (pending[t] == 0) release_task(e.a, 0, static_cast<int>(t));
                break;
            }
            case EventType::task_done: task_done(e.a, e.b, e.c); break;
            case EventType::coflow_sent: {
                const CoflowState& st = coflows_.at(e.a);
                if (st.job < 0) break;
                IterState& is = jobs_[st.job].iters.at(st.iteration);
                for (int s : jobs_[st.job].sent_succ[st.task])
                    if (--is.pending[s] == 0) release_task(st.job, st.iteration, s);
                break;
            }
            case EventType::coflow_done: {
                auto it = coflows_.find(e.a);
                const CoflowState st = it->second;
                coflows_.erase(it);
                CoflowRecord rec;
                rec.id = st.record_id;
                rec.job = st.job;
                rec.iteration = st.iteration;
                rec.task = st.task;
                rec.kind = st.kind;
                rec.release_s = st.release_s;
                rec.finish_s = now_;
                rec.bytes = st.bytes;
                result_.coflows.push_back(rec);
                if (st.job >= 0) task_done(st.job, st.iteration, st.task);
                break;
            }
        }
    }

    void build_view() {
        // Runs at every event: slots are stamped on the coflow states (no hashing), and the
        // view's entries keep their flow lists' storage from one event to the next.
        ++view_epoch_;
        size_t used = 0;
        for (size_t i = 0; i < flows_.size(); ++i) {
            const int uid = flow_meta_[i].coflow_uid;
            CoflowState& st = *flow_meta_[i].coflow;
            if (st.view_epoch != view_epoch_) {
                st.view_epoch = view_epoch_;
                st.view_slot = static_cast<int>(used);
                if (used == view_pool_.size()) view_pool_.emplace_back();
                ActiveCoflow& c = view_pool_[used++];
                c.id = uid;
                c.job = st.job;
                c.iteration = st.iteration;
                c.kind = st.kind;
                c.micro_batch = st.micro_batch;
                c.layer = st.layer;
                c.release_s = st.release_s;
                c.total_bytes = st.bytes;
                c.sent_bytes = st.sent;
                c.flows.clear();
            }
            flows_[i].coflow = st.view_slot;
            view_pool_[static_cast<size_t>(st.view_slot)].flows.push_back(static_cast<int>(i));
        }
        // Swap the live entries into the view the schedulers read; the spare ones stay pooled.
        view_coflows_.resize(used);
        for (size_t k = 0; k < used; ++k) std::swap(view_coflows_[k], view_pool_[k]);
        result_.stats.max_active_coflows = std::max(result_.stats.max_active_coflows, static_cast<int>(view_coflows_.size()));
    }

    void check_invariants() {
        std::vector<double> load(static_cast<size_t>(net_.num_links()), 0);
        for (const auto& f : flows_)
            for (int l : *f.path) load[l] += f.rate;
        for (int l = 0; l < net_.num_links(); ++l)
            result_.stats.max_link_load = std::max(result_.stats.max_link_load, load[l] / net_.link(l).capacity_Bps);
        if (!sched_.work_conserving()) return;
        for (const auto& f : flows_) {
            bool saturated = false;
            for (int l : *f.path)
                if (load[l] >= net_.link(l).capacity_Bps * (1 - 1e-6)) saturated = true;
            if (!saturated) ++result_.stats.work_conservation_violations;
        }
    }

    // Reads the clock once every 256 passes, so a run without progress pays nothing.
    void report_progress(long pass) {
        if (!opt_.progress || pass % 256 != 0) return;
        const auto wall = std::chrono::steady_clock::now();
        if (std::chrono::duration<double>(wall - last_progress_).count() < opt_.progress_every_s) return;
        last_progress_ = wall;
        opt_.progress(SimProgress{now_, result_.stats.flow_events, result_.coflows.size(),
                                  std::chrono::duration<double>(wall - started_).count(), result_.stats.allocations,
                                  flows_.size()});
    }

    void loop() {
        double review_at = kInf;
        bool dirty = true;
        started_ = last_progress_ = std::chrono::steady_clock::now();
        for (long pass = 1;; ++pass) {
            report_progress(pass);
            if (now_ >= opt_.horizon_s) break;
            if (dirty && !flows_.empty()) {
                build_view();
                SchedView view;
                view.now = now_;
                view.net = &net_;
                view.flows = &flows_;
                view.coflows = &view_coflows_;
                view.jobs = &progress_;
                const auto s0 = std::chrono::steady_clock::now();
                sched_.allocate(view);
                result_.stats.scheduler_wall_s +=
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - s0).count();
                ++result_.stats.allocations;
                for (auto& f : flows_) f.rate = std::max(0.0, f.rate);
                if (opt_.check_invariants) check_invariants();
                const double dt = sched_.review_after(view);
                // A review closer than a nanosecond would only chase rounding.
                review_at = dt < kInf ? now_ + std::max(dt, 1e-9) : kInf;
            }
            dirty = false;
            // now_ + min(x) is min(now_ + x): rounding is monotone, so one addition will do.
            double dt_flow = kInf;
            for (const auto& f : flows_)
                if (f.rate > 0) dt_flow = std::min(dt_flow, f.remaining / f.rate);
            const double t_flow = now_ + dt_flow;
            const double t_event = events_.empty() ? kInf : events_.top().t;
            double t = std::min({t_flow, t_event, review_at});
            if (t == kInf) {
                if (!flows_.empty()) ++result_.stats.stalls;
                break;
            }
            t = std::min(t, opt_.horizon_s);
            const double dt = std::max(0.0, t - now_);
            // Advance every flow; finish those whose last byte is out. Sums run in locals with
            // the same additions in the same order: through memory, each addition waited for
            // the previous store (a coflow's flows mostly sit next to each other), and the
            // compiler could not rule out aliasing between the stats and the coflow states.
            double bytes_sent = result_.stats.bytes_sent;
            CoflowState* run = nullptr;   // the coflow of the previous flow, its sum in run_sent
            double run_sent = 0;
            for (size_t i = 0; i < flows_.size(); ++i) {
                ActiveFlow& f = flows_[i];
                const double sent = std::min(f.remaining, f.rate * dt);
                f.remaining -= sent;
                bytes_sent += sent;
                CoflowState* c = flow_meta_[i].coflow;
                if (c != run) {
                    if (run) run->sent = run_sent;
                    run = c;
                    run_sent = c->sent;
                }
                run_sent += sent;
            }
            if (run) run->sent = run_sent;
            result_.stats.bytes_sent = bytes_sent;
            now_ = t;
            for (size_t i = 0; i < flows_.size();) {
                ActiveFlow& f = flows_[i];
                const bool done = f.remaining <= f.bytes * 1e-12 ||
                                  (f.rate > 0 && now_ + f.remaining / f.rate <= now_ + kTimeEps);
                if (!done) {
                    ++i;
                    continue;
                }
                result_.stats.bytes_sent += f.remaining;   // the rounding crumb
                CoflowState& st = *flow_meta_[i].coflow;
                st.last_delivery = std::max(st.last_delivery, now_ + flow_meta_[i].latency);
                if (--st.pending == 0) {
                    push(now_, EventType::coflow_sent, flow_meta_[i].coflow_uid);
                    push(st.last_delivery, EventType::coflow_done, flow_meta_[i].coflow_uid);
                }
                ++result_.stats.flow_events;
                flows_[i] = flows_.back();
                flows_.pop_back();
                flow_meta_[i] = flow_meta_.back();
                flow_meta_.pop_back();
                dirty = true;
            }
            while (!events_.empty() && events_.top().t <= now_ + kTimeEps) {
                const Event e = events_.top();
                events_.pop();
                handle(e);
                dirty = true;
            }
            if (now_ >= review_at - kTimeEps) dirty = true;
            if (flows_.empty()) review_at = kInf;
        }
    }
};

}  // namespace

double measure_period(const Network& net, const PeriodicJob& job, int iterations) {
    PeriodicJob alone = job;
    alone.arrival_s = 0;
    alone.iterations = std::max(1, std::min(iterations, job.iterations));
    Workload w;
    w.jobs.push_back(std::move(alone));
    auto fair = make_scheduler("fair");
    const SimResult r = simulate(net, w, *fair);
    return r.jobs[0].mean_iteration_s();
}

SimResult simulate(const Network& net, const Workload& workload, Scheduler& scheduler, const SimOptions& options) {
    // The allocation path is chosen per thread; restore the caller's choice however we leave.
    struct ReferenceGuard {
        bool before = using_reference_maxmin();
        explicit ReferenceGuard(bool on) { use_reference_maxmin(before || on); }
        ~ReferenceGuard() { use_reference_maxmin(before); }
    } guard(options.reference_allocation);
    return Sim(net, workload, scheduler, options).run();
}

}  // namespace spiderflow::coflow
