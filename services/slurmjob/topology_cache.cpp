#include "services/slurmjob/topology_cache.h"

#include <sys/stat.h>

#include <exception>

#include "libspiderflow/topology/reader.h"

namespace spiderflow::slurmjob {

std::shared_ptr<const Topology> TopologyCache::get(const std::string& path, const std::string& format, std::string* error) {
    std::lock_guard<std::mutex> lock(mu_);
    struct stat st {};
    if (path.empty()) {
        if (error) *error = "no topology configured (topology= in spiderflow.conf)";
        return nullptr;
    }
    if (::stat(path.c_str(), &st) != 0) {
        if (error) *error = "cannot stat topology file " + path;
        topology_.reset();
        path_.clear();
        return nullptr;
    }
    const bool same = path == path_ && st.st_mtim.tv_sec == mtime_.tv_sec && st.st_mtim.tv_nsec == mtime_.tv_nsec &&
                      static_cast<long long>(st.st_size) == size_;
    if (!same) {
        path_ = path;
        mtime_ = st.st_mtim;
        size_ = static_cast<long long>(st.st_size);
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
