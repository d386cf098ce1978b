#include "tools/spiderflow/doctor/plugstack.h"

#include <glob.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "common/util/text_file.h"

namespace spiderflow::doctor {
namespace {

std::vector<std::string> words_of(const std::string& line) {
    std::istringstream in(line);
    std::vector<std::string> w;
    for (std::string s; in >> s;) w.push_back(s);
    return w;
}

void read_one(const std::string& path, int depth, Plugstack& out) {
    if (std::find(out.read.begin(), out.read.end(), path) != out.read.end()) return;
    std::string text;
    if (!read_whole_file(path, text)) {
        out.problems.push_back(path + ": cannot be read");
        return;
    }
    out.read.push_back(path);
    std::istringstream in(text);
    int n = 0;
    for (std::string line; std::getline(in, line);) {
        ++n;
        if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
        const std::vector<std::string> w = words_of(line);
        if (w.empty()) continue;
        const std::string at = path + ":" + std::to_string(n);
        if (w[0] == "include") {
            if (w.size() != 2) {
                out.problems.push_back(at + ": include takes one file pattern");
                continue;
            }
            if (depth >= 8) {
                out.problems.push_back(at + ": includes nested too deep");
                continue;
            }
            std::string pattern = w[1];
            if (pattern[0] != '/') pattern = (std::filesystem::path(path).parent_path() / pattern).string();
            glob_t g{};
            if (::glob(pattern.c_str(), 0, nullptr, &g) == 0) {
                for (size_t i = 0; i < g.gl_pathc; ++i) read_one(g.gl_pathv[i], depth + 1, out);
            }
            globfree(&g);
            continue;
        }
        if ((w[0] != "required" && w[0] != "optional") || w.size() < 2) {
            out.problems.push_back(at + ": not 'required PATH', 'optional PATH' or 'include GLOB'");
            continue;
        }
        SpankLine s;
        s.file = path;
        s.line = n;
        s.required = w[0] == "required";
        s.path = w[1];
        s.args.assign(w.begin() + 2, w.end());
        out.plugins.push_back(std::move(s));
    }
}

}  // namespace

Plugstack read_plugstack(const std::string& path) {
    Plugstack out;
    read_one(path, 0, out);
    return out;
}

std::string resolve_in_plugindir(const std::string& path, const std::string& plugindir) {
    std::error_code ec;
    if (!path.empty() && path[0] == '/') return std::filesystem::is_regular_file(path, ec) ? path : "";
    std::stringstream dirs(plugindir);
    for (std::string dir; std::getline(dirs, dir, ':');) {
        if (dir.empty()) continue;
        const std::string p = dir + "/" + path;
        if (std::filesystem::is_regular_file(p, ec)) return p;
    }
    return "";
}

}  // namespace spiderflow::doctor
