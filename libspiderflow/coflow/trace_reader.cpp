#include <cmath>
#include <fstream>
#include <sstream>

#include "libspiderflow/coflow/trace.h"
#include "libspiderflow/util/errors.h"

namespace spiderflow::coflow {

namespace {

// Parses a whole token as a number; anything else is an error naming the line and field.
long parse_int(const std::string& tok, const std::string& src, int line, const std::string& field) {
    try {
        size_t used = 0;
        const long v = std::stol(tok, &used);
        if (used == tok.size()) return v;
    } catch (const std::exception&) {
    }
    throw InputError(src, line, field, "expected an integer, got '" + tok + "'");
}

double parse_double(const std::string& tok, const std::string& src, int line, const std::string& field) {
    try {
        size_t used = 0;
        const double v = std::stod(tok, &used);
        if (used == tok.size() && std::isfinite(v)) return v;
    } catch (const std::exception&) {
    }
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
            trace.ports = static_cast<int>(parse_int(tk.next("ports"), src, line, "ports"));
            declared = parse_int(tk.next("coflows"), src, line, "coflows");
            if (trace.ports < 1 || trace.ports > 1000000) throw InputError(src, line, "ports", "must be 1..1000000");
            if (declared < 0) throw InputError(src, line, "coflows", "must be >= 0");
            if (!tk.done()) throw InputError(src, line, "header", "expected exactly 'PORTS COFLOWS'");
            continue;
        }
        TraceCoflow c;
        c.id = static_cast<int>(parse_int(tk.next("id"), src, line, "id"));
        const double arrival_ms = parse_double(tk.next("arrival_ms"), src, line, "arrival_ms");
        if (arrival_ms < 0) throw InputError(src, line, "arrival_ms", "must be >= 0");
        c.arrival_s = arrival_ms / 1e3;
        const long mappers = parse_int(tk.next("num_mappers"), src, line, "num_mappers");
        if (mappers < 1 || mappers > trace.ports) throw InputError(src, line, "num_mappers", "must be 1..ports");
        std::vector<int> mapper_ports;
        for (long m = 0; m < mappers; ++m) {
            const std::string field = "mapper[" + std::to_string(m) + "]";
            const long p = parse_int(tk.next(field), src, line, field);
            if (p < 0 || p >= trace.ports) throw InputError(src, line, field, "port out of range 0.." + std::to_string(trace.ports - 1));
            mapper_ports.push_back(static_cast<int>(p));
        }
        const long reducers = parse_int(tk.next("num_reducers"), src, line, "num_reducers");
        if (reducers < 1 || reducers > trace.ports) throw InputError(src, line, "num_reducers", "must be 1..ports");
        for (long r = 0; r < reducers; ++r) {
            const std::string field = "reducer[" + std::to_string(r) + "]";
            const std::string& tok = tk.next(field);
            const size_t colon = tok.find(':');
            if (colon == std::string::npos) throw InputError(src, line, field, "expected PORT:MB, got '" + tok + "'");
            const long p = parse_int(tok.substr(0, colon), src, line, field);
            if (p < 0 || p >= trace.ports) throw InputError(src, line, field, "port out of range 0.." + std::to_string(trace.ports - 1));
            const double mb = parse_double(tok.substr(colon + 1), src, line, field);
            if (mb < 0) throw InputError(src, line, field, "MB must be >= 0");
            const double per_flow = mb * kTraceMB / static_cast<double>(mappers);
            for (int mp : mapper_ports) c.flows.push_back({mp, static_cast<int>(p), per_flow});
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
