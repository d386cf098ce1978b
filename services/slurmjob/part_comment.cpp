#include "services/slurmjob/part_comment.h"

#include <sys/wait.h>

#include <sstream>

namespace spiderflow::slurmjob {

namespace {
constexpr const char* kEnded = " ended ";
}

std::string format_part_comment(const PartComment& c) {
    std::string out = "spiderflow-xjob " + c.xjob + " part " + std::to_string(c.part) + " attempt " + std::to_string(c.attempt);
    if (!c.ended.empty()) out += kEnded + c.ended;
    return out;
}

bool parse_part_comment(const std::string& comment, PartComment* out) {
    std::string head = comment, ended;
    const size_t at = comment.find(kEnded);
    if (at != std::string::npos) {
        head = comment.substr(0, at);
        ended = comment.substr(at + std::string(kEnded).size());
        if (ended.empty()) return false;
    }
    std::istringstream in(head);
    std::string tag, w1, w2, rest;
    long p = -1, a = -1;
    PartComment c;
    if (!(in >> tag >> c.xjob >> w1 >> p >> w2 >> a) || tag != "spiderflow-xjob" || w1 != "part" || w2 != "attempt" ||
        p < 0 || a < 0 || (in >> rest)) {
        return false;
    }
    c.part = static_cast<size_t>(p);
    c.attempt = static_cast<int>(a);
    c.ended = ended;
    *out = c;
    return true;
}

std::string exit_words(int status) {
    if (WIFSIGNALED(status)) return "signal " + std::to_string(WTERMSIG(status));
    return "exit code " + std::to_string(WEXITSTATUS(status));
}

}  // namespace spiderflow::slurmjob
