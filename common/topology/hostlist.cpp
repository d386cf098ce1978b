// Slurm hostlist expansion ("n[001-016,20],m5"), used for every node/switch/file list in the
// site config. Sizes are checked before anything is generated so a typo cannot exhaust memory.
#include <cctype>
#include <string>
#include <vector>

#include "common/topology/slurm_conf.h"
#include "common/util/errors.h"

namespace spiderflow::slurm {
namespace {

struct Range {
    unsigned long long lo = 0;
    unsigned long long hi = 0;
    size_t width = 0;  // zero padding, from the lower bound as written
};

// A piece of one host pattern: literal text, or a bracket group of numeric ranges.
struct Piece {
    std::string literal;
    std::vector<Range> ranges;  // empty for a literal
    unsigned long long count() const {
        if (ranges.empty()) return 1;
        unsigned long long n = 0;
        for (const auto& r : ranges) n += r.hi - r.lo + 1;
        return n;
    }
};

class HostlistParser {
public:
    HostlistParser(const std::string& source, int line, const std::string& field, std::string_view list)
        : source_(source), line_(line), field_(field), list_(list) {}

    [[noreturn]] void fail(const std::string& what) const {
        throw InputError(source_, line_, field_, "bad hostlist '" + std::string(list_) + "': " + what);
    }

    unsigned long long number(std::string_view digits) const {
        if (digits.empty()) fail("empty number in a range");
        if (digits.size() > 18) fail("number '" + std::string(digits) + "' is too long");
        unsigned long long v = 0;
        for (char c : digits) {
            if (!std::isdigit(static_cast<unsigned char>(c))) fail("'" + std::string(digits) + "' is not a number");
            v = v * 10 + static_cast<unsigned long long>(c - '0');
        }
        return v;
    }

    std::vector<Range> bracket(std::string_view body) const {
        std::vector<Range> out;
        size_t start = 0;
        while (start <= body.size()) {
            size_t comma = body.find(',', start);
            std::string_view item = body.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
            size_t dash = item.find('-');
            Range r;
            if (dash == std::string_view::npos) {
                r.lo = r.hi = number(item);
            } else {
                r.lo = number(item.substr(0, dash));
                r.hi = number(item.substr(dash + 1));
                if (r.hi < r.lo) fail("range '" + std::string(item) + "' runs backwards");
            }
            r.width = dash == std::string_view::npos ? item.size() : dash;
            out.push_back(r);
            if (comma == std::string_view::npos) break;
            start = comma + 1;
        }
        return out;
    }

    std::vector<Piece> pieces(std::string_view host) const {
        std::vector<Piece> out;
        size_t i = 0;
        while (i < host.size()) {
            if (host[i] == ']') fail("']' without '['");
            if (host[i] == '[') {
                size_t close = host.find(']', i);
                if (close == std::string_view::npos) fail("'[' without ']'");
                std::string_view body = host.substr(i + 1, close - i - 1);
                if (body.find('[') != std::string_view::npos) fail("nested '['");
                Piece p;
                p.ranges = bracket(body);
                out.push_back(std::move(p));
                i = close + 1;
            } else {
                size_t next = host.find_first_of("[]", i);
                if (next == std::string_view::npos) next = host.size();
                Piece p;
                p.literal = std::string(host.substr(i, next - i));
                out.push_back(std::move(p));
                i = next;
            }
        }
        return out;
    }

    void expand(const std::vector<Piece>& ps, size_t at, std::string& prefix, std::vector<std::string>& out) const {
        if (at == ps.size()) {
            out.push_back(prefix);
            return;
        }
        const Piece& p = ps[at];
        size_t keep = prefix.size();
        if (p.ranges.empty()) {
            prefix += p.literal;
            expand(ps, at + 1, prefix, out);
        } else {
            for (const auto& r : p.ranges) {
                for (unsigned long long v = r.lo;; ++v) {
                    std::string digits = std::to_string(v);
                    if (digits.size() < r.width) digits.insert(0, r.width - digits.size(), '0');
                    prefix += digits;
                    expand(ps, at + 1, prefix, out);
                    prefix.resize(keep);
                    if (v == r.hi) break;
                }
            }
        }
        prefix.resize(keep);
    }

    std::vector<std::string> run() const {
        // Top-level commas separate hosts; commas inside brackets separate ranges.
        std::vector<std::string_view> hosts;
        int depth = 0;
        size_t start = 0;
        for (size_t i = 0; i <= list_.size(); ++i) {
            if (i == list_.size() || (list_[i] == ',' && depth == 0)) {
                if (i > start) hosts.push_back(list_.substr(start, i - start));
                start = i + 1;
            } else if (list_[i] == '[') {
                ++depth;
            } else if (list_[i] == ']') {
                --depth;
            }
        }
        std::vector<std::string> out;
        unsigned long long total = 0;
        for (auto host : hosts) {
            auto ps = pieces(host);
            unsigned long long n = 1;
            for (const auto& p : ps) {
                unsigned long long c = p.count();
                // c <= 1e18 per range sum, so compare by division to avoid overflow.
                if (c > kMaxHostlist || n > kMaxHostlist / c) fail("expands to more than " + std::to_string(kMaxHostlist) + " names");
                n *= c;
            }
            total += n;
            if (total > kMaxHostlist) fail("expands to more than " + std::to_string(kMaxHostlist) + " names");
            std::string prefix;
            expand(ps, 0, prefix, out);
        }
        return out;
    }

private:
    const std::string& source_;
    int line_;
    const std::string& field_;
    std::string_view list_;
};

}  // namespace

std::vector<std::string> expand_hostlist(std::string_view list, const std::string& source, int line,
                                         const std::string& field) {
    return HostlistParser(source, line, field, list).run();
}

}  // namespace spiderflow::slurm
