// The strict key=value config format every SpiderFlow daemon and plugin reads (spiderflow.conf,
// brokerd.conf): '#' comments, one key per line, an unknown key or a key given twice is an
// error naming the file and line, so a typo refuses to load instead of silently doing the default.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace spiderflow {

// A '#'-commented text's lines that say something: (line number from 1, text before any '#').
// Every config SpiderFlow reads numbers its lines this way, so errors name the same line.
std::vector<std::pair<int, std::string>> uncommented_lines(const std::string& text);

struct ConfLine {
    int line = 0;
    std::string key;
    std::string value;   // trimmed; may be empty
};

// Throws InputError(source, line, key, ...) on a line without '=', an unknown key (listing
// `keys`) and a key given twice.
std::vector<ConfLine> read_conf_lines(const std::string& text, const std::string& source,
                                      const std::vector<std::string>& keys);
// The file's text; throws InputError(path, 0, "", "cannot open config file").
std::string read_conf_file(const std::string& path);

// Value readers: each throws InputError(source, line, key, "expected ..., got '...'").
long conf_integer(const ConfLine& l, long lo, long hi, const std::string& source);
double conf_seconds(const ConfLine& l, double lo, double hi, const std::string& source);
bool conf_bool(const ConfLine& l, const std::string& source);
double conf_fraction(const ConfLine& l, const std::string& source);   // in (0, 1]

}  // namespace spiderflow
