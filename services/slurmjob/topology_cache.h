// The cluster's topology, read once and kept; re-read only when the file's mtime changes, so the
// submit path (under slurmctld locks) never parses a file per job. Thread-safe.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "common/topology/topology.h"
#include "common/util/file_stamp.h"

namespace spiderflow::slurmjob {

class TopologyCache {
public:
    // Returns the current topology or null (missing/broken file: `error` says why). Never throws.
    std::shared_ptr<const Topology> get(const std::string& path, const std::string& format, std::string* error);

private:
    std::mutex mu_;
    std::string path_;
    FileStamp stamp_;
    std::shared_ptr<const Topology> topology_;
    std::string error_;
};

}  // namespace spiderflow::slurmjob
