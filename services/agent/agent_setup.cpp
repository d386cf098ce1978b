#include "services/agent/agent_setup.h"

#include <memory>

#include "services/slurmjob/spiderflow_conf.h"
#include "common/topology/reader.h"
#include "common/util/errors.h"

namespace spiderflow::agent {

LoadedAgent load_agent(const std::string& agent_conf_path, const std::function<std::string()>& cluster_from_slurm,
                       bool with_token, const Agent::Log& log) {
    LoadedAgent out;
    AgentSetup& setup = out.setup;
    setup.conf = load_agent_conf(agent_conf_path);
    const slurmjob::SpiderflowConf site = slurmjob::load_spiderflow_conf(setup.conf.spiderflow_conf);
    if (site.topology.empty()) {
        throw InputError(setup.conf.spiderflow_conf, 0, "topology", "names no topology file (the federation's)");
    }
    setup.topology = std::make_shared<const Topology>(read_topology(site.topology, site.topology_format));
    setup.cache_path = site.site_state;
    setup.measured_links_path = measured_links_path(site.site_state);
    setup.measured_link_max_age_s = site.measured_link_max_age_s;
    setup.cluster = site.cluster;
    if (setup.cluster.empty() && cluster_from_slurm) setup.cluster = cluster_from_slurm();
    if (setup.cluster.empty()) setup.cluster = setup.topology->clusters.front().name;
    if (setup.topology->cluster_index(setup.cluster) < 0) {
        throw InputError(setup.conf.spiderflow_conf, 0, "cluster",
                         "cluster '" + setup.cluster + "' is not in the topology " + site.topology);
    }
    if (setup.cache_path.empty()) {
        log(setup.conf.spiderflow_conf + " sets no site_state=: job_submit will not see the federation");
    }
    if (site.cross_site && !setup.conf.cross_site_parts) {
        // job_submit would hold jobs larger than this cluster for an agent that never hands them on.
        log("cross_site_parts = no here but " + setup.conf.spiderflow_conf +
            " plans larger jobs across sites (cross_site = yes): set cross_site = no there, or such jobs stay held");
    }
    out.endpoint.url = setup.conf.broker;
    out.endpoint.ca_file = setup.conf.ca_file;
    if (with_token) out.endpoint.token = read_token_file(setup.conf.token_file);
    return out;
}

}  // namespace spiderflow::agent
