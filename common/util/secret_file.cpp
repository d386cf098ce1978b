#include "common/util/secret_file.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "common/util/text_file.h"

namespace spiderflow {

std::string read_secret_file(const std::string& path, const std::string& what) {
    struct stat st {};
    // Each failure says why (a user's own token file, unreadable, is "Permission denied", not empty).
    auto cannot = [&] { return std::runtime_error("cannot read " + what + " file " + path + ": " + std::strerror(errno)); };
    if (::stat(path.c_str(), &st) != 0) throw cannot();
    if (!S_ISREG(st.st_mode)) throw std::runtime_error(what + " file " + path + " is not a regular file");
    // Nobody else may read a secret, except one group a site gave a shared (reader) token to: a
    // root-owned file whose group is not root's (doc/federation.md, "A token for users").
    const bool site_shared = st.st_uid == 0 && st.st_gid != 0 && (st.st_mode & 027) == 0;
    if ((st.st_mode & 077) != 0 && !site_shared) {
        throw std::runtime_error(what + " file " + path + " is readable by others; chmod 600 it (the " + what +
                                 " is not used)");
    }
    std::string t;
    if (!read_whole_file(path, t)) throw cannot();
    const auto b = t.find_first_not_of(" \t\r\n");
    const auto e = t.find_last_not_of(" \t\r\n");
    if (b == std::string::npos) throw std::runtime_error(what + " file " + path + " is empty");
    return t.substr(b, e - b + 1);
}

}  // namespace spiderflow
