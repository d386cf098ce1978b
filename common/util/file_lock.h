// An exclusive flock on a lock file, held while the object lives (closing the descriptor, also
// by a crash or kill -9, releases it, so a lock is never left stale). Two uses: waiting for a
// per-node lock (the traffic-class edits of jobs on one node), and refusing to start a second
// instance of a daemon that must be alone (one broker per SQLite file), naming the first.
#pragma once

#include <optional>
#include <string>

namespace spiderflow {

class FileLock {
public:
    // Waits for the lock. Without a lock file (it cannot be created) it holds nothing: callers
    // for whom the lock is a courtesy between cooperating processes run unlocked then.
    static FileLock wait_for(const std::string& path);

    // Takes the lock at once and writes `owner` (who holds it: a pid, an address) into the file,
    // or returns nothing and sets `*holder` to what the holder wrote there. Throws
    // std::runtime_error when the file cannot be created or locked for another reason.
    static std::optional<FileLock> try_exclusive(const std::string& path, const std::string& owner,
                                                 std::string* holder);

    FileLock(FileLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
    FileLock& operator=(FileLock&& other) noexcept;
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;
    ~FileLock();

    bool held() const { return fd_ >= 0; }

private:
    explicit FileLock(int fd) : fd_(fd) {}
    int fd_ = -1;
};

}  // namespace spiderflow
