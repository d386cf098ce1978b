#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include "common/coflow/trace.h"
#include "common/util/errors.h"
#include "common/util/parse_number.h"

namespace spiderflow::coflow {

namespace {

double parse_double(const std::string& tok, const std::string& src, int line, const std::string& field) {
    if (const auto v = to_number(tok)) return *v;
    throw InputError(src, line, field, "expected a number, got '" + tok + "'");
}

class Tokens {
public:
    Tokens(const std::string& text, const std::string& src, int line) : src_(src), line_(line) {
        std::istringstream ss(text);
        for (std::string t; ss >> t;) toks_.push_back(t);
    }
    bool done() const { return pos_ >= toks_.size(); }
    size_t size() const { return toks_.size(); }
    const std::string& next(const std::string& field) {
        if (done()) throw InputError(src_, line_, field, "line ends early: missing " + field);
        return toks_[pos_++];
    }

private:
    std::vector<std::string> toks_;
    size_t pos_ = 0;
    std::string src_;
    int line_;
};

}  // namespace

Trace parse_trace(std::istream& in, const std::string& src) {
    Trace trace;
    std::string text;
    int line = 0;
    long declared = -1;
    while (std::getline(in, text)) {
        ++line;
        Tokens tk(text, src, line);
        if (tk.done()) continue;   // blank lines carry nothing
        if (declared < 0) {
            trace.ports = parse_int(tk.next("ports"), 1, 1000000, src, line, "ports");
            declared = parse_int(tk.next("coflows"), 0L, std::numeric_limits<long>::max(), src, line, "coflows");
            if (!tk.done()) throw InputError(src, line, "header", "expected exactly 'PORTS COFLOWS'");
            continue;
        }
        TraceCoflow c;
        c.id = parse_int(tk.next("id"), std::numeric_limits<int>::min(), std::numeric_limits<int>::max(), src, line, "id");
        const double arrival_ms = parse_double(tk.next("arrival_ms"), src, line, "arrival_ms");
        if (arrival_ms < 0) throw InputError(src, line, "arrival_ms", "must be >= 0");
        c.arrival_s = arrival_ms / 1e3;
        const int mappers = parse_int(tk.next("num_mappers"), 1, trace.ports, src, line, "num_mappers");
        std::vector<int> mapper_ports;
        for (int m = 0; m < mappers; ++m) {
            const std::string field = "mapper[" + std::to_string(m) + "]";
            mapper_ports.push_back(parse_int(tk.next(field), 0, trace.ports - 1, src, line, field));
        }
        const int reducers = parse_int(tk.next("num_reducers"), 1, trace.ports, src, line, "num_reducers");
        for (int r = 0; r < reducers; ++r) {
            const std::string field = "reducer[" + std::to_string(r) + "]";
            const std::string& tok = tk.next(field);
            const size_t colon = tok.find(':');
            if (colon == std::string::npos) throw InputError(src, line, field, "expected PORT:MB, got '" + tok + "'");
            const int p = parse_int(tok.substr(0, colon), 0, trace.ports - 1, src, line, field);
            const double mb = parse_double(tok.substr(colon + 1), src, line, field);
            if (mb < 0) throw InputError(src, line, field, "MB must be >= 0");
            const double per_flow = mb * kTraceMB / static_cast<double>(mappers);
            for (int mp : mapper_ports) c.flows.push_back({mp, p, per_flow});
        }
        if (!tk.done()) throw InputError(src, line, "", "unexpected tokens after the reducers");
        trace.coflows.push_back(std::move(c));
    }
    if (declared < 0) throw InputError(src, line, "header", "empty trace: expected 'PORTS COFLOWS'");
    if (static_cast<long>(trace.coflows.size()) != declared)
        throw InputError(src, 1, "coflows", "header declares " + std::to_string(declared) + " coflows, file has " +
                                                std::to_string(trace.coflows.size()));
    return trace;
}

Trace read_trace(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw InputError(path, 0, "", "cannot open trace file");
    return parse_trace(in, path);
}

}  // namespace spiderflow::coflow
