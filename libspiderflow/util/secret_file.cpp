#include "libspiderflow/util/secret_file.h"

#include <sys/stat.h>

#include <stdexcept>

#include "libspiderflow/util/text_file.h"

namespace spiderflow {

std::string read_secret_file(const std::string& path, const std::string& what) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) throw std::runtime_error("cannot read " + what + " file " + path);
    if ((st.st_mode & 077) != 0) {
        throw std::runtime_error(what + " file " + path + " is readable by others; chmod 600 it (the " + what +
                                 " is not used)");
    }
    std::string t;
    if (!read_whole_file(path, t)) throw std::runtime_error("cannot read " + what + " file " + path);
    const auto b = t.find_first_not_of(" \t\r\n");
    const auto e = t.find_last_not_of(" \t\r\n");
    if (b == std::string::npos) throw std::runtime_error(what + " file " + path + " is empty");
    return t.substr(b, e - b + 1);
}

}  // namespace spiderflow
