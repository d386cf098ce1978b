#include "common/util/human_format.h"

#include <cstdio>

namespace spiderflow {

std::string format_number(const char* format, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

std::string format_bytes(double b) {
    if (b >= 1e12) return format_number("%.2f TB", b / 1e12);
    if (b >= 1e9) return format_number("%.2f GB", b / 1e9);
    if (b >= 1e6) return format_number("%.1f MB", b / 1e6);
    return format_number("%.0f B", b);
}

}  // namespace spiderflow
