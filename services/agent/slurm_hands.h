// SlurmHands (part_runner.h) and ProbeHands (probe_runner.h) on libslurm: the calls a
// cross-site part and a link probe need on this cluster.
#pragma once

#include <string>
#include <vector>

#include "services/agent/part_runner.h"
#include "services/agent/probe_runner.h"

namespace spiderflow::agent {

class LibslurmHands : public SlurmHands, public ProbeHands {
public:
    // min_uid: a part for a user below it (root, system accounts) is refused: a cluster's token
    // must not be enough to run a script as root on another site.
    // wan_address: how other sites reach a node here (agent.conf): %n is its name, %a its NodeAddr.
    LibslurmHands(std::string cluster, long min_uid, std::string wan_address = "%a");
    std::string address_of(const std::string& node) override;
    int64_t will_run(const coalloc::Order& o) override;
    std::vector<std::string> reserve(const coalloc::Order& o) override;
    void release(const std::string& reservation) override;
    std::vector<std::string> part_reservations() override;
    uint32_t submit(const coalloc::Order& o) override;
    void cancel(uint32_t job_id, const std::string& why) override;
    std::vector<PartJob> part_jobs() override;
    std::vector<HomeJob> home_jobs() override;
    void take_over(uint32_t job_id) override;
    std::string batch_script(uint32_t job_id) override;
    void start_held(const coalloc::Order& o) override;
    void nudge(uint32_t job_id) override;
    uint32_t submit_probe(const std::string& name, const std::string& script) override;
    std::vector<ProbeJob> probe_jobs() override;
    void cancel_probe(uint32_t job_id) override;

private:
    // The nodes of reservation `name`; empty when there is none.
    std::vector<std::string> reservation_nodes(const std::string& name);
    std::string cluster_;
    long min_uid_;
    std::string wan_address_;
};

}  // namespace spiderflow::agent
