// The cluster's topology, read once and kept; re-read only when the file's mtime changes, so the
// submit path (under slurmctld locks) never parses a file per job. Thread-safe.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "common/topology/topology.h"
#include "common/util/stamped_file.h"

namespace spiderflow::slurmjob {

class TopologyCache {
public:
    // Returns the current topology or null (missing/broken file: `error` says why). Never throws.
    std::shared_ptr<const Topology> get(const std::string& path, const std::string& format, std::string* error);

private:
    // One read of the file: the topology, or why there is none.
    struct Read {
        std::shared_ptr<const Topology> topology;
        std::string error;
    };
    static Read read(const std::string& path, const std::string& format);

    std::mutex mu_;
    StampedFile<Read> file_;
};

}  // namespace spiderflow::slurmjob
