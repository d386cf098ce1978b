// What a reload-on-change cache compares to tell whether a file changed since it was read: its
// modification time (to the nanosecond) and size, as stat() gives them. One home for the caches
// of the submit path (the site config, the topology, the site state snapshot), which stat a
// file per job and parse it only when the stamp differs.
#pragma once

#include <sys/stat.h>

#include <ctime>
#include <string>

namespace spiderflow {

struct FileStamp {
    bool exists = false;
    struct timespec mtime {};
    long long size = -1;

    // The stamp of `path` now; `st`, when given, receives stat()'s whole answer (mode, times).
    static FileStamp of(const std::string& path, struct stat* st = nullptr);

    bool operator==(const FileStamp& o) const {
        return exists == o.exists && mtime.tv_sec == o.mtime.tv_sec && mtime.tv_nsec == o.mtime.tv_nsec && size == o.size;
    }
};

}  // namespace spiderflow
