// Numbers as the text outputs print them, one spelling for every writer.
#pragma once

#include <string>

namespace spiderflow {

// printf-style formatting of one number, e.g. format_number("%.1f%%", 96.04) = "96.0%".
std::string format_number(const char* format, double v);
// Bytes in decimal units: "4.00 TB", "4.00 GB", "4.0 MB", "400 B".
std::string format_bytes(double bytes);

}  // namespace spiderflow
