#include "libspiderflow/util/text_file.h"

#include <fstream>
#include <sstream>

#include "libspiderflow/util/errors.h"

namespace spiderflow {

std::string read_text_file(const std::string& path, const std::string& what) {
    std::ifstream f(path);
    if (!f) throw InputError(path, 0, "", "cannot open " + what);
    std::ostringstream text;
    text << f.rdbuf();
    return text.str();
}

}  // namespace spiderflow
