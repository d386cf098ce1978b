// A whole text file in memory, for the small files SpiderFlow reads (configs, links files).
#pragma once

#include <string>

namespace spiderflow {

// Throws InputError(path, 0, "", "cannot open " + what).
std::string read_text_file(const std::string& path, const std::string& what = "file");

}  // namespace spiderflow
