#include "common/util/text_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "common/util/errors.h"

namespace spiderflow {

bool read_whole_file(const std::string& path, std::string& out) {
    // O_NONBLOCK: a FIFO without a writer must not hang the reader (slurmctld reads the topology
    // and site files under its locks); only regular files are read, so /dev/zero cannot either.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return false;
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        const int err = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
        ::close(fd);
        errno = err;
        return false;
    }
    std::string text;
    text.reserve(static_cast<size_t>(st.st_size));
    char buf[1 << 16];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n > 0) {
            text.append(buf, static_cast<size_t>(n));
        } else if (n == 0) {
            break;
        } else if (errno != EINTR) {
            const int err = errno;
            ::close(fd);
            errno = err;
            return false;
        }
    }
    ::close(fd);
    out = std::move(text);
    return true;
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
