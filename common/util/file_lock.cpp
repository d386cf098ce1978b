#include "common/util/file_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace spiderflow {

FileLock FileLock::wait_for(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return FileLock(-1);
    while (::flock(fd, LOCK_EX) != 0 && errno == EINTR) {
    }
    return FileLock(fd);
}

std::optional<FileLock> FileLock::try_exclusive(const std::string& path, const std::string& owner,
                                                std::string* holder) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) throw std::runtime_error("cannot create lock file " + path + ": " + std::strerror(errno));
    FileLock lock(fd);
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        const int error = errno;
        if (error != EWOULDBLOCK) throw std::runtime_error("cannot lock " + path + ": " + std::strerror(error));
        // The holder writes its name just after taking the lock: read in that instant the text
        // is empty, and the caller says so rather than waiting for it.
        char buf[512];
        const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
        std::string text = n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
        while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
        if (holder) *holder = text;
        return std::nullopt;
    }
    const std::string line = owner + "\n";
    if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, line.data(), line.size(), 0) != static_cast<ssize_t>(line.size())) {
        throw std::runtime_error("cannot write lock file " + path + ": " + std::strerror(errno));
    }
    return lock;
}

FileLock& FileLock::operator=(FileLock&& other) noexcept {
    if (this != &other) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = other.fd_;
        other.fd_ = -1;
    }
    return *this;
}

FileLock::~FileLock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the flock
}

}  // namespace spiderflow
