// Slurm's JobRequeue against cross-site jobs' on_failure. With JobRequeue=1 (Slurm's default)
// slurmctld requeues a batch job whose node fails: a cross-site part comes back PENDING on its
// own cluster instead of ending NODE_FAIL. The agent reports a part's end, not a part waiting
// again, so the broker hears of no failed node: the peers learn of it only when their programs
// time out, a job that asked to be requeued is planned again without leaving the failed nodes
// out, and the lone part may start again while its peers are gone (SLURM-NOTES, 2026-12-07).
// Sites whose jobs default to on_failure = requeue are hit hardest: an error; elsewhere a
// warning, since any user may still ask --llm-on-failure=requeue.
#include "tools/spiderflow/doctor/checks.h"

namespace spiderflow::doctor {

void check_job_requeue(const SiteFacts& site, CheckResult& r) {
    const SlurmSettings* s = site.slurm.settings();
    if (s == nullptr) return r.skip("slurm.conf could not be read");
    if (site.broker.url.empty() && !site.agent.conf)
        return r.pass("JobRequeue=" + std::to_string(s->job_requeue) + "; no federation, so no cross-site parts");
    if (s->job_requeue == 0) return r.pass("JobRequeue=0: a failed part ends, and the broker decides");
    if (!site.spiderflow.conf) return r.skip("spiderflow.conf does not load (its on_failure is not known)");
    const std::string where = site.slurm.where("jobrequeue");
    const std::string fix = "JobRequeue=0 in slurm.conf, then scontrol reconfigure (a user's own job may still ask sbatch --requeue)";
    if (site.spiderflow.conf->requeue_on_failure) {
        r.error("JobRequeue", "is 1 while " + site.spiderflow.path +
                                  " says on_failure = requeue: when a node of a cross-site part fails, Slurm requeues that "
                                  "part alone on this cluster instead of ending it, so the broker never hears of the failed "
                                  "node, cannot plan the job again without it, and the lone part may start again without its peers",
                fix, where);
        return;
    }
    r.warning("JobRequeue", "is 1 (Slurm's default): when a node of a cross-site part fails, Slurm requeues that part alone "
                            "instead of ending it, so its peers learn of it only when their programs time out, and jobs that "
                            "ask --llm-on-failure=requeue are not planned again without the failed node",
              fix, where);
}

}  // namespace spiderflow::doctor
