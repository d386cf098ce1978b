// Test driver for the SPANK plugin's job prolog/epilog enforcement: calls the functions the
// hooks call (services/slurmjob/job_traffic.h) with a real `tc`, so the integration test can run
// job start and end inside a network namespace without slurmd.
//   job_tc_driver prolog CONF JOB [LEVEL]   -> the job's class on CONF's wan_interface
//   job_tc_driver epilog CONF JOB           -> gone again
// Prints the outcome; exits 0 when done, 1 when not (the hooks log that and return 0), 2 on usage.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "common/coflow/command_runner.h"
#include "services/slurmjob/job_traffic.h"
#include "services/slurmjob/spiderflow_conf.h"

using namespace spiderflow::slurmjob;

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: %s prolog|epilog CONF JOB [LEVEL]\n", argv[0]);
        return 2;
    }
    const std::string what = argv[1];
    SpiderflowConf cfg;
    try {
        cfg = load_spiderflow_conf(argv[2]);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "spiderflow: %s\n", e.what());
        return 2;
    }
    const int job = std::atoi(argv[3]);
    spiderflow::coflow::ProcessRunner runner;
    TcOutcome r;
    if (what == "prolog") r = start_job_traffic(cfg, job, argc > 4 ? argv[4] : "", runner);
    else if (what == "epilog") r = end_job_traffic(cfg, job, runner);
    else return 2;
    std::printf("spiderflow: %s: %s: %s\n", what.c_str(), r.done ? "done" : "not done", r.message.c_str());
    return r.done ? 0 : 1;
}
