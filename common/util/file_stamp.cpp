#include "common/util/file_stamp.h"

namespace spiderflow {

FileStamp FileStamp::of(const std::string& path, struct stat* st) {
    struct stat buf {};
    struct stat* s = st != nullptr ? st : &buf;
    FileStamp stamp;
    if (path.empty() || ::stat(path.c_str(), s) != 0) return stamp;
    stamp.exists = true;
    stamp.mtime = s->st_mtim;
    stamp.size = static_cast<long long>(s->st_size);
    return stamp;
}

}  // namespace spiderflow
