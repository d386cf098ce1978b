#include "services/slurmjob/topology_cache.h"

#include <exception>

#include "common/topology/reader.h"

namespace spiderflow::slurmjob {

std::shared_ptr<const Topology> TopologyCache::get(const std::string& path, const std::string& format, std::string* error) {
    std::lock_guard<std::mutex> lock(mu_);
    if (path.empty()) {
        if (error) *error = "no topology configured (topology= in spiderflow.conf)";
        return nullptr;
    }
    const FileStamp stamp = FileStamp::of(path);
    if (!stamp.exists) {
        if (error) *error = "cannot stat topology file " + path;
        topology_.reset();
        path_.clear();
        return nullptr;
    }
    if (path != path_ || !(stamp == stamp_)) {
        path_ = path;
        stamp_ = stamp;
        try {
            topology_ = std::make_shared<const Topology>(read_topology(path, format));
            error_.clear();
        } catch (const std::exception& e) {
            topology_.reset();
            error_ = e.what();
        } catch (...) {
            topology_.reset();
            error_ = "unknown error reading " + path;
        }
    }
    if (!topology_ && error) *error = error_;
    return topology_;
}

}  // namespace spiderflow::slurmjob
