// The hand-off from sbatch to the broker. job_submit cannot reach the network, so it only plans a
// job larger than its cluster across the federation, keeps this cluster's part held and names
// every part in the job's AdminComment. Each cycle the agent finds such jobs, turns the hold into
// an admin hold (the user cannot start one part alone), and submits the cross-site job to the
// broker as HOME:JOBID with the job's script. When the broker orders the home part submitted,
// the part runner releases the held job instead (part_runner.cpp). A held job cancelled before
// that (scancel) cancels the cross-site job. Repeating any of it is harmless: the broker answers
// 409 for a job it has.
#pragma once

#include <functional>
#include <set>
#include <string>

#include "services/broker_client/broker_client.h"
#include "services/coalloc/xjob.h"
#include "services/agent/part_runner.h"

namespace spiderflow::agent {

// The cross-site job for held home job `job` on `cluster`, with its batch script. Throws
// std::invalid_argument when its AdminComment names no cross-site plan with a part here.
coalloc::XJob xjob_for_home_job(const std::string& cluster, const HomeJob& job, const std::string& script);

class HomeJobHandoff {
public:
    using Log = std::function<void(const std::string&)>;
    // default_time_limit_s: a job without a time limit gets this one in every part and reservation.
    HomeJobHandoff(std::string cluster, BrokerClient client, SlurmHands& hands, int64_t default_time_limit_s, Log log);
    // Never throws; what fails is tried again next cycle.
    void cycle();
    // agent.conf read again (SIGHUP): the jobs handed on already stay handed.
    void reconfigure(BrokerClient client, int64_t default_time_limit_s) {
        client_ = std::move(client);
        default_time_limit_s_ = default_time_limit_s;
    }

private:
    void hand_over(const HomeJob& job);
    std::string cluster_;
    BrokerClient client_;
    SlurmHands& hands_;
    int64_t default_time_limit_s_;
    Log log_;
    std::set<uint32_t> handed_;     // the broker has these
    std::set<uint32_t> cancelled_;  // the broker was told these ended while held
};

}  // namespace spiderflow::agent
