#include "services/fedsim/fed_simulator.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <optional>

#include "services/fedsim/placement.h"
#include "services/fedsim/run_summary.h"
#include "services/fedsim/wan_sharing.h"
#include "common/util/errors.h"

namespace spiderflow::fedsim {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// "oregon:16 ohio:8": GPUs per cluster, in cluster order (outcomes and the decision log).
std::string gpus_per_cluster(const std::map<int, int>& gpus, const Topology& topology) {
    std::string out;
    for (const auto& [c, g] : gpus)
        out += (out.empty() ? "" : " ") + topology.clusters[static_cast<size_t>(c)].name + ":" + std::to_string(g);
    return out;
}

std::map<int, int> plan_gpus_per_cluster(const Plan& plan) {
    std::map<int, int> gpus;
    for (const StageCell& c : plan.cells) gpus[c.cluster] += plan.tp;
    return gpus;
}

struct Run {
    Plan plan;
    double remaining = 0;            // iterations
    double iteration_s = 0;          // cost model, alone
    double slowdown = 1;
    double train_start = 0;
    int gpus = 0;
    std::map<int, int> gpus_by_cluster;
    double trained_s = 0;            // time spent training so far
    double rate() const { return 1 / (iteration_s * slowdown); }   // iterations per second
    double end_at(double now) const { return std::max(now, train_start) + remaining / rate(); }
};

class FederationSim {
public:
    FederationSim(const SiteState& federation, const JobTrace& trace, const Catalog& catalog, const FedSimOptions& o)
        : state_(federation.clone()), trace_(trace), catalog_(catalog), o_(o),
          policy_(make_placement(o.placement, o.planner_time_limit_s, o.seed)),
          usable_(state_.usable_view()), sharing_(usable_, catalog, o.network) {
        check_homes(trace, usable_);
        out_.jobs.resize(trace.jobs.size());
        last_failed_epoch_.assign(trace.jobs.size(), std::numeric_limits<uint64_t>::max());
        est_runtime_.assign(trace.jobs.size(), 0);
        best_iteration_s_.assign(trace.jobs.size(), 0);
        best_gpus_by_cluster_.assign(trace.jobs.size(), {});
        iterations_.assign(trace.jobs.size(), 0);
        for (const auto& c : usable_.clusters) total_gpus_ += c.total_gpus();
    }

    FedSimResult run() {
        const auto wall0 = std::chrono::steady_clock::now();
        auto last_progress = wall0;
        std::vector<size_t> order(trace_.jobs.size());
        for (size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::stable_sort(order.begin(), order.end(),
                         [&](size_t a, size_t b) { return trace_.jobs[a].submit_s < trace_.jobs[b].submit_s; });
        size_t next = 0;
        while (true) {
            double t_finish = kInf;
            for (const auto& [j, r] : running_) t_finish = std::min(t_finish, r.end_at(now_));
            const double t_arrive = next < order.size() ? trace_.jobs[order[next]].submit_s : kInf;
            const double tn = std::min(t_finish, t_arrive);
            if (tn == kInf) break;
            advance(tn);
            bool changed = finish_due();
            while (next < order.size() && trace_.jobs[order[next]].submit_s <= now_) {
                admit(order[next++]);
                changed = true;
            }
            if (changed) schedule();
            sample();
            if (o_.check_invariants) check();
            if (o_.progress) {
                const auto w = std::chrono::steady_clock::now();
                if (std::chrono::duration<double>(w - last_progress).count() >= o_.progress_every_s) {
                    last_progress = w;
                    o_.progress({now_, done_, running_.size(), queued(), trace_.jobs.size(),
                                 std::chrono::duration<double>(w - wall0).count()});
                }
            }
        }
        // Left in a queue with nothing running: the planner found no layout even with the
        // federation empty, which admission should have caught. Reported, never dropped.
        for (auto& [q, jobs] : queues_)
            for (size_t j : jobs) out_.jobs[j].unplaceable = "never started: " + last_why_[j];
        out_.summary = summarize(out_.jobs, decisions_, busy_gpu_s_, total_gpus_);
        out_.summary.placement = policy_->name();
        out_.summary.network = o_.network;
        out_.summary.planner_calls = planner_calls_;
        out_.summary.decisions_capped = decisions_capped_;
        out_.summary.wan_simulations = sharing_.simulations();
        out_.summary.wan_wall_s = sharing_.wall_s();
        out_.summary.invariant_violations = violations_;
        out_.summary.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
        return std::move(out_);
    }

private:
    size_t queued() const {
        size_t n = 0;
        for (const auto& [q, jobs] : queues_) n += jobs.size();
        return n;
    }

    void advance(double tn) {
        for (auto& [j, r] : running_) {
            const double from = std::max(now_, r.train_start);
            if (tn <= from) continue;
            r.remaining -= (tn - from) * r.rate();
            r.trained_s += tn - from;
        }
        busy_gpu_s_ += busy_gpus_ * (tn - now_);
        now_ = tn;
    }

    bool finish_due() {
        std::vector<size_t> done;
        for (const auto& [j, r] : running_)
            if (r.remaining <= 1e-9 * std::max(1.0, iterations_[j]) || r.end_at(now_) <= now_ + 1e-9) done.push_back(j);
        for (size_t j : done) {
            Run& r = running_.at(j);
            JobOutcome& o = out_.jobs[j];
            o.finish_s = now_;
            o.mean_iteration_s = iterations_[j] > 0 ? r.trained_s / iterations_[j] : 0;
            state_.release(trace_.jobs[j].id);
            busy_gpus_ -= r.gpus;
            const bool cross = o.cross_site;
            running_.erase(j);
            ++done_;
            if (cross) update_sharing();
        }
        return !done.empty();
    }

    // Once, at submit: can the job ever run here (on the whole federation, as the policy would
    // place it), and how many iterations is its work.
    void admit(size_t j) {
        const TraceJob& job = trace_.jobs[j];
        JobOutcome& o = out_.jobs[j];
        o.id = job.id;
        o.model = job.model;
        o.home = job.home;
        o.submit_s = job.submit_s;
        const PlaceAttempt a = policy_->place(usable_, job, catalog_);
        count(o, a);
        log(j, true, usable_, a);
        if (!a.plan) {
            o.unplaceable = a.why;
            ++done_;
            return;
        }
        iterations_[j] = iterations_for(j);
        if (iterations_[j] <= 0) {
            o.unplaceable = last_why_[j];
            ++done_;
            return;
        }
        o.iterations = iterations_[j];
        o.tokens = iterations_[j] * job.tokens_per_iteration();
        best_iteration_s_[j] = a.plan->prediction.iteration_s;
        best_gpus_by_cluster_[j] = plan_gpus_per_cluster(*a.plan);
        est_runtime_[j] = iterations_[j] * a.plan->prediction.iteration_s + o_.cross_site_start_s;
        queues_[policy_->queue_of(job)].push_back(j);
    }

    // The same work whatever the policy: a recorded run time is converted on the home cluster
    // alone with first-fit (how long that history took there), else on the best one cluster,
    // else with spinsearch across clusters.
    double iterations_for(size_t j) {
        const TraceJob& job = trace_.jobs[j];
        switch (job.work_unit) {
        case WorkUnit::iterations: return std::ceil(job.work);
        case WorkUnit::tokens: return std::ceil(job.work / job.tokens_per_iteration());
        case WorkUnit::duration_s: break;
        }
        if (work_refs_.empty())   // built once, on the first recorded run time
            for (const char* ref : {"slurm-alone", "slurm-federation", "spinsearch"})
                work_refs_.push_back(make_placement(ref, o_.planner_time_limit_s, o_.seed));
        for (const auto& p : work_refs_) {
            const PlaceAttempt a = p->place(usable_, job, catalog_);
            if (a.plan && a.plan->prediction.iteration_s > 0)
                return std::max(1.0, std::round(job.work / a.plan->prediction.iteration_s));
            last_why_[j] = a.why;
        }
        return 0;
    }

    void count(JobOutcome& o, const PlaceAttempt& a) {
        ++o.decisions;
        o.decisions_capped += a.hit_limit;
        decisions_capped_ += a.hit_limit;
        o.planner_wall_s += a.wall_s;
        decisions_.push_back(a.wall_s);
        planner_calls_ += a.planner_calls;
    }

    void log(size_t j, bool admission, const Topology& view, const PlaceAttempt& a) {
        if (!o_.log_decisions) return;
        const TraceJob& job = trace_.jobs[j];
        DecisionRecord d;
        d.t_s = admission ? job.submit_s : decided_at_;
        d.job = job.id;
        d.admission = admission;
        d.gpus_min = job.gpus_min;
        d.gpus_max = job.gpus_max;
        std::map<int, int> free;
        for (size_t c = 0; c < view.clusters.size(); ++c)
            if (view.clusters[c].total_gpus() > 0) free[static_cast<int>(c)] = view.clusters[c].total_gpus();
        d.free = gpus_per_cluster(free, view);
        if (a.plan) {
            const Plan& p = *a.plan;
            const std::string where = gpus_per_cluster(plan_gpus_per_cluster(p), view);
            d.plan = "tp" + std::to_string(p.tp) + " pp" + std::to_string(p.pp) + " dp" + std::to_string(p.dp) + " mb" +
                     std::to_string(p.micro_batch) + " v" + std::to_string(p.virtual_stages) +
                     (p.job.zero1 ? " zero1" : "") + (p.job.recomputes() ? std::string(" recompute=") + to_string(p.job.recompute) : std::string()) + " on " + where;
            d.predicted_iteration_s = p.prediction.iteration_s;
        } else {
            d.why = a.why;
        }
        d.wall_ms = a.wall_s * 1000;
        d.capped = a.hit_limit;
        d.found_by = a.found_by;
        d.planner_calls = a.planner_calls;
        out_.decisions.push_back(std::move(d));
    }

    const Topology& free_view() {
        if (!view_ || view_epoch_ != state_.epoch()) {
            view_ = std::make_unique<Topology>(state_.free_view(static_cast<SiteTime>(std::floor(now_))));
            view_epoch_ = state_.epoch();
        }
        return *view_;
    }

    int free_gpus(const std::string& queue) {
        const Topology& v = free_view();
        if (queue.empty()) {
            int n = 0;
            for (const auto& c : v.clusters) n += c.total_gpus();
            return n;
        }
        return v.clusters[static_cast<size_t>(v.cluster_index(queue))].total_gpus();
    }

    // EASY backfill's reservation for a blocked head: when enough GPUs of its queue will be free
    // (running jobs ending in their expected order), and how many beyond its need.
    std::pair<double, int> shadow(const std::string& queue, int need) {
        int avail = free_gpus(queue);
        const int qc = queue.empty() ? -1 : usable_.cluster_index(queue);
        std::vector<std::pair<double, int>> ends;
        for (const auto& [j, r] : running_) {
            int g = 0;
            for (const auto& [c, n] : r.gpus_by_cluster)
                if (qc < 0 || c == qc) g += n;
            if (g) ends.emplace_back(r.end_at(now_), g);
        }
        std::sort(ends.begin(), ends.end());
        if (avail >= need) return {now_, avail - need};
        for (const auto& [t, g] : ends) {
            avail += g;
            if (avail >= need) return {t, avail - need};
        }
        return {kInf, 0};
    }

    // A scheduling pass. Charged, its decisions run one after another from when the scheduler is
    // free, each taking its measured wall time; a job starts when the decision placing it ends.
    void schedule() {
        decided_at_ = std::max(now_, scheduler_free_at_);
        for (auto& [queue, jobs] : queues_) {
            std::stable_sort(jobs.begin(), jobs.end(), [&](size_t a, size_t b) {
                const TraceJob &x = trace_.jobs[a], &y = trace_.jobs[b];
                if (x.priority != y.priority) return x.priority > y.priority;
                return x.submit_s != y.submit_s ? x.submit_s < y.submit_s : a < b;
            });
            bool blocked = false;
            double shadow_t = kInf;
            int extra = 0, tried = 0;
            // A head that waits for its best placement reserves those clusters alone: a job that
            // would outlast the wait may still start on any other (reserving the whole federation
            // for it left most GPUs idle under load: doc/simulate.md).
            std::map<int, int> reserved;
            std::vector<size_t> started;
            for (size_t j : jobs) {
                const TraceJob& job = trace_.jobs[j];
                bool off_reserved = false;
                if (blocked) {
                    if (!o_.backfill || tried >= o_.backfill_depth) break;
                    ++tried;
                    const bool ends_in_time = now_ + est_runtime_[j] <= shadow_t;
                    if (!ends_in_time && job.gpus_min > extra) {
                        if (reserved.empty()) continue;
                        off_reserved = true;
                    }
                }
                std::optional<Plan> plan;
                double waits_until = kInf;   // a head that waits for its best placement's GPUs: when they free up
                if (free_gpus(queue) >= job.gpus_min && last_failed_epoch_[j] != state_.epoch()) {
                    // Off the reserved clusters: the GPUs free now elsewhere.
                    std::optional<Topology> elsewhere;
                    if (off_reserved) elsewhere = state_.free_view(static_cast<SiteTime>(std::floor(now_)), reserved);
                    const Topology& view = elsewhere ? *elsewhere : free_view();
                    PlaceAttempt a = policy_->place(view, job, catalog_);
                    count(out_.jobs[j], a);
                    log(j, false, view, a);
                    if (o_.charge_decision_time) decided_at_ += a.wall_s;
                    if (a.plan && !worth_starting(j, *a.plan, waits_until)) {
                        a.plan.reset();
                        if (o_.log_decisions) out_.decisions.back().held = true;
                    }
                    else if (a.plan) plan = std::move(a.plan);
                    else if (!off_reserved) {   // off the reserved clusters says nothing of the rest
                        last_failed_epoch_[j] = state_.epoch();
                        last_why_[j] = a.why;
                    }
                }
                if (plan) {
                    const bool ends_in_time = now_ + est_runtime_[j] <= shadow_t;
                    if (!start(j, std::move(*plan))) continue;
                    started.push_back(j);
                    if (blocked && !ends_in_time) extra -= out_.jobs[j].gpus;
                    continue;
                }
                if (!blocked) {
                    blocked = true;
                    // A head waiting for its best placement is due when those GPUs free up: jobs
                    // that end before then may start on anything.
                    if (waits_until < kInf) {
                        std::tie(shadow_t, extra) = std::pair{waits_until, 0};
                        reserved = best_gpus_by_cluster_[j];
                    } else {
                        std::tie(shadow_t, extra) = shadow(queue, job.gpus_min);
                    }
                }
            }
            jobs.erase(std::remove_if(jobs.begin(), jobs.end(),
                                      [&](size_t j) { return std::find(started.begin(), started.end(), j) != started.end(); }),
                       jobs.end());
        }
        scheduler_free_at_ = decided_at_;
    }

    // Start now, or wait for a placement close to the best (header). A job that waits for its best
    // placement's GPUs gets in `waits_until` when they are expected free.
    bool worth_starting(size_t j, const Plan& plan, double& waits_until) {
        if (o_.slack < 0 || !policy_->waits_for_better()) return true;
        const double cross = plan_crosses(plan) ? o_.cross_site_start_s : 0;
        const double now_run = iterations_[j] * plan.prediction.iteration_s + cross;
        const double best_run = iterations_[j] * best_iteration_s_[j];
        if (now_run <= (1 + o_.slack) * best_run) return true;
        // When the running jobs' expected ends say the best placement's GPUs free up soon enough
        // that waiting for them ends sooner, the job waits for them, however long it has queued.
        // Otherwise it starts now. A second rule that also waited, from submit, as long as
        // starting now would lose (ski-rental) held nine plans in ten back on mixed GPUs under
        // load, where nearly every placement off the fastest GPUs is slower than its bar, and left
        // the GPUs idle; waiting also for clusters like the best one's (its GPU type, as many
        // GPUs) did the same (doc/simulate.md).
        const double best_at = best_free_at(j);
        if (best_at < kInf && decided_at_ + now_run > best_at + best_run) {
            waits_until = best_at;
            return false;
        }
        return true;
    }

    // When the clusters of the job's best placement (its admission plan) are expected to have its
    // GPUs free, from the running jobs' expected ends: what waiting for it would cost.
    double best_free_at(size_t j) {
        double t = now_;
        for (const auto& [c, g] : best_gpus_by_cluster_[j])
            t = std::max(t, shadow(usable_.clusters[static_cast<size_t>(c)].name, g).first);
        return t;
    }

    static bool plan_crosses(const Plan& plan) {
        for (const auto& c : plan.cells)
            if (c.cluster != plan.cells.front().cluster) return true;
        return false;
    }

    bool start(size_t j, Plan plan) {
        const TraceJob& job = trace_.jobs[j];
        JobOutcome& o = out_.jobs[j];
        std::map<std::pair<int, int>, int> per_node;
        Run r;
        for (const auto& c : plan.cells) per_node[{c.cluster, c.node}] += plan.tp;
        r.gpus_by_cluster = plan_gpus_per_cluster(plan);
        std::vector<NodeShare> shares;
        for (const auto& [n, g] : per_node) shares.push_back({state_.name_of({n.first, n.second}), g, 0});
        try {
            state_.allocate(job.id, shares, static_cast<SiteTime>(std::floor(now_)));
        } catch (const InputError& e) {
            // The plan asked for GPUs the state does not have free: a policy bug, counted.
            ++violations_;
            last_why_[j] = e.what();
            last_failed_epoch_[j] = state_.epoch();
            return false;
        }
        r.gpus = plan.world_size();
        r.iteration_s = plan.prediction.iteration_s;
        r.remaining = iterations_[j];
        o.cross_site = r.gpus_by_cluster.size() > 1;
        // Its GPUs are held from now; it starts once the decision placing it is done.
        r.train_start = decided_at_ + (o.cross_site ? o_.cross_site_start_s : 0);
        o.start_s = decided_at_;
        o.gpus = r.gpus;
        o.alone_iteration_s = r.iteration_s;
        o.placement = gpus_per_cluster(r.gpus_by_cluster, usable_);
        r.plan = std::move(plan);
        busy_gpus_ += r.gpus;
        running_.emplace(j, std::move(r));
        if (o.cross_site) update_sharing();
        return true;
    }

    void update_sharing() {
        std::vector<RunningPlan> cross;
        for (const auto& [j, r] : running_)
            if (out_.jobs[j].cross_site) cross.push_back({trace_.jobs[j].id, &r.plan});
        const auto slow = sharing_.slowdowns(cross);
        for (auto& [j, r] : running_)
            if (out_.jobs[j].cross_site) r.slowdown = std::max(1e-6, slow.at(trace_.jobs[j].id));
    }

    void sample() {
        TimelineSample s{now_, busy_gpus_, 0, running_.size(), queued()};
        for (const auto& [j, r] : running_)
            if (r.train_start <= now_) s.tokens_per_s += trace_.jobs[j].tokens_per_iteration() * r.rate();
        if (!out_.timeline.empty() && out_.timeline.back().t == s.t) out_.timeline.back() = s;
        else out_.timeline.push_back(s);
    }

    void check() {
        const SiteTime t = static_cast<SiteTime>(std::floor(now_));
        int used = 0;
        for (size_t c = 0; c < usable_.clusters.size(); ++c)
            for (size_t n = 0; n < usable_.clusters[c].nodes.size(); ++n) {
                const NodeRef ref{static_cast<int>(c), static_cast<int>(n)};
                const int u = state_.used_gpus(ref, t);
                if (u > state_.topology().clusters[c].nodes[n].gpus) ++violations_;
                used += u;
            }
        if (used != busy_gpus_) ++violations_;
    }

    SiteState state_;
    const JobTrace& trace_;
    const Catalog& catalog_;
    const FedSimOptions& o_;
    std::unique_ptr<PlacementPolicy> policy_;
    std::vector<std::unique_ptr<PlacementPolicy>> work_refs_;   // iterations_for()'s references
    Topology usable_;
    WanSharing sharing_;
    FedSimResult out_;
    double now_ = 0;
    int total_gpus_ = 0;
    int busy_gpus_ = 0;
    double busy_gpu_s_ = 0;
    size_t done_ = 0;
    long violations_ = 0;
    long planner_calls_ = 0;
    long decisions_capped_ = 0;
    double decided_at_ = 0;          // when the pass's latest decision ends (charged decisions)
    double scheduler_free_at_ = 0;   // when the last pass ended
    std::map<std::string, std::vector<size_t>> queues_;
    std::map<size_t, Run> running_;
    std::vector<uint64_t> last_failed_epoch_;
    std::map<size_t, std::string> last_why_;
    std::vector<double> est_runtime_;
    std::vector<double> best_iteration_s_;
    std::vector<std::map<int, int>> best_gpus_by_cluster_;   // cluster -> GPUs of the admission plan
    std::vector<double> iterations_;
    std::vector<double> decisions_;
    std::unique_ptr<Topology> view_;
    uint64_t view_epoch_ = 0;
};

}  // namespace

void check_homes(const JobTrace& trace, const Topology& federation) {
    for (const auto& j : trace.jobs)
        if (federation.cluster_index(j.home) < 0)
            throw InputError(trace.source, j.line, "home", "'" + j.home + "' is not a cluster of the federation");
}

FedSimResult simulate_federation(const SiteState& federation, const JobTrace& trace, const Catalog& catalog,
                                 const FedSimOptions& options) {
    FederationSim sim(federation, trace, catalog, options);
    return sim.run();
}

}  // namespace spiderflow::fedsim
