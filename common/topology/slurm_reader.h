// TopologyReader "slurm": a site's own slurm.conf, with gres.conf and topology.conf beside it,
// read as one cluster (ClusterName). No inter-cluster links: a federation is several of these
// joined by our own topology file or the broker.
//
// What is taken from where:
//   cluster name   ClusterName= (required, as Slurm requires it)
//   nodes          NodeName= lines (NodeName=DEFAULT applied), in file order
//   GPU count      Gres=gpu[:TYPE]:N on the node line (Slurm's own authority)
//   GPU type       the Gres type, else a gres.conf Type= for the node, else a Feature= word that
//                  names a GPU; mapped by canonical_gpu_type() (gpu_alias.h)
//   switches       topology.conf SwitchName/Switches/Nodes; a node's leaf_switch is the switch
//                  listing it
// NICs, NVLink domains and bandwidths are not in Slurm's files and stay unknown (0/empty).
#pragma once

#include <string>

#include "common/topology/reader.h"
#include "common/topology/slurm_conf.h"
#include "common/topology/topology.h"

namespace spiderflow {

// Builds and finalizes the one-cluster Topology. Throws InputError naming the file and line
// of anything that cannot be turned into a topology (missing ClusterName, a node defined twice,
// a switch naming an undefined switch or node). `spiderflow topo check` reports those as
// findings instead, by running check_slurm_files() first.
Topology topology_from_slurm_files(const slurm::SlurmFiles& site);

class SlurmReader : public TopologyReader {
public:
    std::string name() const override { return "slurm"; }
    Topology read(const std::string& path) const override;
    // `text` is a slurm.conf alone (no gres.conf or topology.conf).
    Topology parse(const std::string& text, const std::string& source) const override;
};

}  // namespace spiderflow
