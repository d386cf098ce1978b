// One file's content as last read, read again only when the file changed: the reload-on-change
// cache of the submit path and the agent (the site config, its error, the topology, the site
// state snapshot). They stat a file per job or per round and parse it only when its FileStamp,
// or the path itself, differs from the read they hold.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "common/util/file_stamp.h"

namespace spiderflow {

template <class T>
class StampedFile {
public:
    // What read(path, stamp) returned, calling it again only when nothing was read yet, `path` is
    // not the path last read, its stamp changed, or the caller knows of another change
    // (`also_changed`: something else the content was made from). A missing file is a stamp
    // like any other (exists == false). Should `read` throw, nothing is held and the exception
    // goes to the caller: the next call reads again.
    template <class Read>
    const T& get(const std::string& path, const FileStamp& stamp, Read&& read, bool also_changed = false) {
        if (!value_ || path != path_ || !(stamp == stamp_) || also_changed) {
            value_.reset();
            value_.emplace(std::forward<Read>(read)(path, stamp));
            path_ = path;
            stamp_ = stamp;
        }
        return *value_;
    }
    template <class Read>
    const T& get(const std::string& path, Read&& read) {
        return get(path, FileStamp::of(path), std::forward<Read>(read));
    }

    // The content last read, or null; for callers that decide `also_changed` from it.
    const T* held() const { return value_ ? &*value_ : nullptr; }
    // Forgets the content, so that the next get() reads whatever the stamp.
    void forget() { value_.reset(); }

private:
    std::string path_;
    FileStamp stamp_;
    std::optional<T> value_;
};

}  // namespace spiderflow
