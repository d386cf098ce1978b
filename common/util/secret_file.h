// A secret (a token, a database password) kept in a file that only its owner may read. A file
// others can read is refused rather than used: the secret in it must be taken as leaked.
#pragma once

#include <string>

namespace spiderflow {

// The file's text without surrounding whitespace. Throws std::runtime_error naming the file
// and `what` when it is missing, readable by group or others (chmod 600 it), or empty.
std::string read_secret_file(const std::string& path, const std::string& what);

}  // namespace spiderflow
