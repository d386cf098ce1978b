// One reader interface for every topology source, chosen by name (see reader_factory.cpp).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/topology/topology.h"

namespace spiderflow {

class TopologyReader {
public:
    virtual ~TopologyReader() = default;
    virtual std::string name() const = 0;
    // Reads `path` (a file; for "slurm" the slurm.conf, with gres.conf/topology.conf beside it)
    // and returns a finalized Topology. Throws InputError naming file, line or field.
    virtual Topology read(const std::string& path) const = 0;
    // Same from text already in memory (used by fuzz targets and tests).
    virtual Topology parse(const std::string& text, const std::string& source) const = 0;
};

// Names: "spiderflow" (our file format), "slurm" (slurm.conf + gres.conf + topology.conf),
// "hwloc" (hwloc XML of one node). Throws InputError listing the valid names on a bad one.
std::unique_ptr<TopologyReader> make_topology_reader(const std::string& name);

// Picks the reader from the file: *.xml -> hwloc, slurm.conf -> slurm, else spiderflow.
Topology read_topology(const std::string& path, const std::string& reader_name = "");

}  // namespace spiderflow
