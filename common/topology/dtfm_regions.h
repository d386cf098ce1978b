// The inter-region figures DTFM measured between AWS regions (Yuan et al., "Decentralized
// Training of Foundation Models in Heterogeneous Environments", NeurIPS 2022), the same table as
// tests/data/measured/aws-region-links.csv (a unit test holds them equal): what the
// decentralized federations' WAN links are made of.
#pragma once

#include <string>
#include <vector>

namespace spiderflow {

struct DtfmLink {
    double latency_ms = 0;  // one way
    double gbps = 0;
};

// The ten regions, in the order of the study's table.
std::vector<std::string> dtfm_regions();
// Between two regions (either order); inside one region the study's figure between instances
// (5 ms, 2 Gbps). Throws std::out_of_range for a region it does not have.
DtfmLink dtfm_link(const std::string& a, const std::string& b);

}  // namespace spiderflow
