// `llm` (ours): coflow scheduling for several training jobs that share WAN links.
// Inside a job it keeps Hermod's order (hermod_order.h). Across jobs it uses what only
// training traffic offers: a job declares its iteration count, its WAN bytes and compute time
// per iteration, so the scheduler knows each job's remaining time without guessing:
//   remaining_s = iterations left * (compute per iteration + WAN bytes per iteration / the
//   narrowest link its flows cross).
// Jobs are served shortest-remaining-first (SRPT at job level, which minimises average JCT on
// one bottleneck); the favoured job's coflows get MADD rates (Varys) so they finish no later
// than with the whole link yet leave spare capacity; everything left is shared max-min. A job
// communicates in bursts separated by compute windows, so while the favoured job computes its
// links are idle and the next jobs' traffic fills them: the jobs interleave instead of all
// slowing down together, as they do under per-flow fairness.
// Trace coflows (no job) are ordered among jobs by their own bottleneck time (SEBF).
#include <algorithm>
#include <limits>
#include <map>
#include <numeric>

#include "common/coflow/allocation.h"
#include "common/coflow/hermod_order.h"
#include "common/coflow/schedulers.h"

namespace spiderflow::coflow {
namespace {

class LlmScheduler final : public Scheduler {
public:
    std::string name() const override { return "llm"; }

    void allocate(SchedView& view) override {
        auto& flows = *view.flows;
        const auto& coflows = *view.coflows;
        const auto& jobs = *view.jobs;
        const Network& net = *view.net;
        for (auto& f : flows) f.rate = 0;
        const std::vector<double> cap = full_capacity(net);

        // Groups: one per job, one per trace coflow; each with a remaining-time key.
        struct Group {
            double key = 0;
            int job = -1;
            int first_id = 0;
            std::vector<int> members;
        };
        std::map<int, size_t> job_group;
        std::vector<Group> groups;
        for (size_t c = 0; c < coflows.size(); ++c) {
            const int job = coflows[c].job;
            if (job < 0) {
                Group g;
                g.members = {static_cast<int>(c)};
                g.first_id = coflows[c].id;
                g.key = bottleneck_time(flows, coflows[c].flows, cap);   // the coflow's flows, not its index
                groups.push_back(std::move(g));
                continue;
            }
            auto [it, fresh] = job_group.emplace(job, groups.size());
            if (fresh) {
                Group g;
                g.job = job;
                g.first_id = coflows[c].id;
                groups.push_back(std::move(g));
            }
            groups[it->second].members.push_back(static_cast<int>(c));
            for (int f : coflows[c].flows)
                for (int l : *flows[f].path) {
                    double& narrow = narrowest_[job];
                    if (narrow == 0 || cap[l] < narrow) narrow = cap[l];
                }
        }
        for (auto& g : groups) {
            if (g.job < 0 || g.job >= static_cast<int>(jobs.size())) continue;
            const JobProgress& p = jobs[g.job];
            const double left = std::max(0, p.iterations_total - p.iterations_done);
            if (p.period_s > 0) {
                g.key = left * p.period_s;
                continue;
            }
            const double narrow = narrowest_[g.job];
            g.key = left * (p.compute_s_per_iteration + (narrow > 0 ? p.wan_bytes_per_iteration / narrow : 0));
        }
        std::stable_sort(groups.begin(), groups.end(), [](const Group& a, const Group& b) {
            return a.key != b.key ? a.key < b.key : a.first_id < b.first_id;
        });

        std::vector<double> residual = cap;
        for (const auto& g : groups) {
            if (g.job < 0) {
                madd_fill(flows, coflows[g.members[0]].flows, residual);
                continue;
            }
            const int m = std::max(1, jobs[g.job].micro_batches);
            const std::vector<int> rank = hermod_ranks(coflows, g.members, m);
            std::vector<int> order(g.members.size());
            std::iota(order.begin(), order.end(), 0);
            std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return rank[a] < rank[b]; });
            for (int i : order) madd_fill(flows, coflows[g.members[i]].flows, residual);
        }
        backfill(view, residual);
    }

private:
    std::map<int, double> narrowest_;   // per job: narrowest link capacity seen on its flows
};

}  // namespace

std::unique_ptr<Scheduler> make_llm_scheduler() { return std::make_unique<LlmScheduler>(); }

}  // namespace spiderflow::coflow
