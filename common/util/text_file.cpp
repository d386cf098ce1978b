#include "common/util/text_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>

#include "common/util/errors.h"

namespace spiderflow {

FileRead read_regular_file(const std::string& path, std::string& out, unsigned long long max_bytes) {
    // O_NONBLOCK: a FIFO without a writer must not hang the reader (slurmctld reads the topology
    // and site files under its locks, sbatch the user's plan file); only regular files are read,
    // so /dev/zero cannot either.
    FileRead r;
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        r.status = FileRead::Status::cannot_open;
        r.error = errno;
        return r;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        r.status = FileRead::Status::not_regular;
        r.error = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
        ::close(fd);
        return r;
    }
    if (static_cast<unsigned long long>(st.st_size) > max_bytes) {
        r.status = FileRead::Status::too_large;
        r.size = static_cast<unsigned long long>(st.st_size);
        ::close(fd);
        return r;
    }
    std::string text;
    text.reserve(static_cast<size_t>(st.st_size));
    char buf[1 << 16];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            r.status = FileRead::Status::cannot_read;
            r.error = errno;
            break;
        }
        if (n == 0) break;
        text.append(buf, static_cast<size_t>(n));
        // A file that grows while read is cut here, never read without bound.
        if (text.size() > max_bytes) {
            r.status = FileRead::Status::too_large;
            break;
        }
    }
    ::close(fd);
    if (r.status == FileRead::Status::ok) out = std::move(text);
    return r;
}

bool read_whole_file(const std::string& path, std::string& out) {
    const FileRead r = read_regular_file(path, out, ULLONG_MAX);
    if (r.status == FileRead::Status::ok) return true;
    errno = r.error;
    return false;
}

bool write_whole_file(const std::string& path, const std::string& text, unsigned mode) {
    const std::string tmp = path + ".tmp." + std::to_string(::getpid());
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, static_cast<mode_t>(mode));
    bool ok = fd >= 0;
    size_t done = 0;
    while (ok && done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        ok = n > 0;
        if (ok) done += static_cast<size_t>(n);
    }
    ok = ok && ::fsync(fd) == 0;
    if (fd >= 0) ok = ::close(fd) == 0 && ok;
    ok = ok && ::rename(tmp.c_str(), path.c_str()) == 0;
    if (!ok) {
        const int error = errno;
        ::unlink(tmp.c_str());
        errno = error;
    }
    return ok;
}

std::string read_text_file(const std::string& path, const std::string& what) {
    std::string text;
    if (!read_whole_file(path, text)) {
        const std::string why = errno == EINVAL ? " (not a regular file)" : errno == EISDIR ? " (a directory)" : "";
        throw InputError(path, 0, "", "cannot open " + what + why);
    }
    return text;
}

}  // namespace spiderflow
