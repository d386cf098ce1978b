#include "common/util/text_file.h"

#include <fstream>
#include <sstream>

#include "common/util/errors.h"

namespace spiderflow {

bool read_whole_file(const std::string& path, std::string& out) {
    std::ifstream f(path, std::ios::binary);
    if (!f) return false;
    std::ostringstream text;
    text << f.rdbuf();
    out = text.str();
    return true;
}

std::string read_text_file(const std::string& path, const std::string& what) {
    std::string text;
    if (!read_whole_file(path, text)) throw InputError(path, 0, "", "cannot open " + what);
    return text;
}

}  // namespace spiderflow
