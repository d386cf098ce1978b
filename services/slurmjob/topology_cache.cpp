#include "services/slurmjob/topology_cache.h"

#include <exception>

#include "common/topology/reader.h"

namespace spiderflow::slurmjob {

TopologyCache::Read TopologyCache::read(const std::string& path, const std::string& format) {
    try {
        return {std::make_shared<const Topology>(read_topology(path, format)), ""};
    } catch (const std::exception& e) {
        return {nullptr, e.what()};
    } catch (...) {
        return {nullptr, "unknown error reading " + path};
    }
}

std::shared_ptr<const Topology> TopologyCache::get(const std::string& path, const std::string& format, std::string* error) {
    std::lock_guard<std::mutex> lock(mu_);
    if (path.empty()) {
        if (error) *error = "no topology configured (topology= in spiderflow.conf)";
        return nullptr;
    }
    const FileStamp stamp = FileStamp::of(path);
    if (!stamp.exists) {
        if (error) *error = "cannot stat topology file " + path;
        file_.forget();
        return nullptr;
    }
    const Read& now = file_.get(path, stamp, [&format](const std::string& p, const FileStamp&) { return read(p, format); });
    if (!now.topology && error) *error = now.error;
    return now.topology;
}

}  // namespace spiderflow::slurmjob
