// Parsers of slurm.conf, gres.conf and topology.conf into the raw structures of slurm_conf.h.
// Syntax as Slurm reads it: '#' starts a comment, a trailing '\' continues the line, words are
// Key=Value with case-insensitive keys and optionally double-quoted values.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <sstream>

#include "common/topology/slurm_conf.h"
#include "common/util/errors.h"
#include "common/util/text_file.h"
#include "common/util/parse_number.h"

namespace spiderflow::slurm {
namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool iequals(std::string_view a, std::string_view b) { return lower(a) == lower(b); }

struct LogicalLine {
    int line = 0;  // first physical line
    std::string text;
};

// Joins continuations and strips comments; blank lines are dropped.
std::vector<LogicalLine> logical_lines(const std::string& text) {
    std::vector<LogicalLine> out;
    std::istringstream in(text);
    std::string physical;
    LogicalLine cur;
    bool continuing = false;
    int line_no = 0;
    while (std::getline(in, physical)) {
        ++line_no;
        if (!physical.empty() && physical.back() == '\r') physical.pop_back();
        bool in_quote = false;
        size_t cut = physical.size();
        for (size_t i = 0; i < physical.size(); ++i) {
            if (physical[i] == '"') in_quote = !in_quote;
            if (physical[i] == '#' && !in_quote) {
                cut = i;
                break;
            }
        }
        physical.resize(cut);
        bool cont = !physical.empty() && physical.back() == '\\';
        if (cont) physical.pop_back();
        if (!continuing) {
            cur = LogicalLine{line_no, ""};
        } else {
            cur.text += ' ';
        }
        cur.text += physical;
        continuing = cont;
        if (!continuing) {
            if (cur.text.find_first_not_of(" \t") != std::string::npos) out.push_back(cur);
        }
    }
    if (continuing && cur.text.find_first_not_of(" \t") != std::string::npos) out.push_back(cur);
    return out;
}

long parse_count(const std::string& value, const std::string& source, int line, const std::string& field) {
    if (value.empty()) throw InputError(source, line, field, "empty count");
    size_t digits = 0;
    while (digits < value.size() && std::isdigit(static_cast<unsigned char>(value[digits]))) ++digits;
    if (digits == 0 || digits > 12) throw InputError(source, line, field, "'" + value + "' is not a count");
    long n = *to_int<long>(value.substr(0, digits));  // at most 12 digits
    std::string suffix = lower(value.substr(digits));
    // Slurm accepts K/M/G multipliers of 1024 on GRES counts.
    if (suffix == "k") n *= 1024L;
    else if (suffix == "m") n *= 1024L * 1024L;
    else if (suffix == "g") n *= 1024L * 1024L * 1024L;
    else if (!suffix.empty()) throw InputError(source, line, field, "'" + value + "' is not a count");
    return n;
}

std::vector<std::string> split_commas(const std::string& s) {
    std::vector<std::string> out;
    std::string cur;
    for (char c : s) {
        if (c == ',') {
            if (!cur.empty()) out.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    if (!cur.empty()) out.push_back(cur);
    return out;
}

// "gpu:a100:8(S:0-1),gpu:v100:2" -> specs. Commas inside (...) do not separate entries.
std::vector<GresSpec> parse_gres(const std::string& value, const std::string& source, int line) {
    std::vector<GresSpec> out;
    if (iequals(value, "none") || value.empty()) return out;
    std::vector<std::string> items;
    std::string cur;
    int depth = 0;
    for (char c : value) {
        if (c == '(') ++depth;
        if (c == ')') --depth;
        if (c == ',' && depth == 0) {
            items.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    items.push_back(cur);
    for (auto item : items) {
        auto paren = item.find('(');
        if (paren != std::string::npos) item.resize(paren);
        if (item.empty()) throw InputError(source, line, "Gres", "empty entry in '" + value + "'");
        std::vector<std::string> parts;
        size_t start = 0;
        while (true) {
            size_t colon = item.find(':', start);
            parts.push_back(item.substr(start, colon == std::string::npos ? std::string::npos : colon - start));
            if (colon == std::string::npos) break;
            start = colon + 1;
        }
        GresSpec g;
        g.name = lower(parts[0]);
        if (g.name.empty()) throw InputError(source, line, "Gres", "entry '" + item + "' has no name");
        for (size_t i = 1; i < parts.size(); ++i) {
            const std::string& p = parts[i];
            bool numeric = !p.empty() && std::isdigit(static_cast<unsigned char>(p[0]));
            if (i + 1 == parts.size() && numeric) {
                g.count = parse_count(p, source, line, "Gres");
            } else if (iequals(p, "no_consume")) {
                continue;
            } else if (p.empty()) {
                throw InputError(source, line, "Gres", "empty field in '" + item + "'");
            } else if (g.type.empty()) {
                g.type = p;
            } else {
                throw InputError(source, line, "Gres", "'" + item + "' has more than one type");
            }
        }
        out.push_back(g);
    }
    return out;
}

// key (lower-case) -> value of one logical line, with the first key remembered.
struct Entry {
    int line = 0;
    std::string first_key;  // lower-case
    std::string first_value;
    std::map<std::string, std::string> kv;
};

Entry entry_of(const LogicalLine& l, const std::string& source) {
    Entry e;
    e.line = l.line;
    auto words = split_config_line(l.text, source, l.line);
    for (size_t i = 0; i < words.size(); ++i) {
        std::string k = lower(words[i].key);
        if (i == 0) {
            e.first_key = k;
            e.first_value = words[i].value;
        }
        e.kv[k] = words[i].value;
    }
    return e;
}

std::string get(const std::map<std::string, std::string>& kv, const std::string& key) {
    auto it = kv.find(key);
    return it == kv.end() ? std::string() : it->second;
}

// Bounds the names one file may expand to in all, so many huge hostlists cannot add up to an
// out-of-memory; each list alone is bounded by expand_hostlist.
class NameBudget {
public:
    explicit NameBudget(const std::string& source) : source_(source) {}
    std::vector<std::string> expand(const std::string& list, int line, const std::string& field) {
        auto names = expand_hostlist(list, source_, line, field);
        used_ += names.size();
        if (used_ > kMaxHostlist)
            throw InputError(source_, line, field, "the file names more than " + std::to_string(kMaxHostlist) + " hosts/devices in all");
        return names;
    }

private:
    const std::string& source_;
    size_t used_ = 0;
};

bool is_include(const std::string& text) {
    auto start = text.find_first_not_of(" \t");
    if (start == std::string::npos) return false;
    std::string word = lower(text.substr(start, 8));
    return word == "include " || word == "include\t";
}

}  // namespace

long NodeLine::gpu_count() const {
    long n = 0;
    for (const auto& g : gres)
        if (g.name == "gpu") n += g.count;
    return n;
}

std::string NodeLine::gpu_type() const {
    for (const auto& g : gres)
        if (g.name == "gpu" && !g.type.empty()) return g.type;
    return {};
}

long GresLine::devices() const {
    if (!files.empty()) return static_cast<long>(files.size());
    if (count >= 0) return count;
    return 1;
}

bool GresLine::applies_to(const std::string& node) const {
    return node_names.empty() || std::find(node_names.begin(), node_names.end(), node) != node_names.end();
}

std::vector<KeyValue> split_config_line(std::string_view line, const std::string& source, int line_no) {
    std::vector<KeyValue> out;
    size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
        if (i >= line.size()) break;
        size_t key_start = i;
        while (i < line.size() && line[i] != '=' && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
        std::string key(line.substr(key_start, i - key_start));
        if (i >= line.size() || line[i] != '=')
            throw InputError(source, line_no, key, "expected Key=Value, found '" + key + "'");
        if (key.empty()) throw InputError(source, line_no, "", "'=' without a key");
        ++i;  // '='
        std::string value;
        if (i < line.size() && line[i] == '"') {
            size_t close = line.find('"', i + 1);
            if (close == std::string_view::npos) throw InputError(source, line_no, key, "unterminated quote");
            value = std::string(line.substr(i + 1, close - i - 1));
            i = close + 1;
        } else {
            size_t v_start = i;
            while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
            value = std::string(line.substr(v_start, i - v_start));
        }
        out.push_back({key, value});
    }
    return out;
}

SlurmConf parse_slurm_conf(const std::string& text, const std::string& source) {
    SlurmConf conf;
    conf.path = source;
    NameBudget budget(source);
    std::map<std::string, std::string> node_defaults;
    std::map<std::string, std::string> part_defaults;
    for (const auto& l : logical_lines(text)) {
        if (is_include(l.text)) {
            // Included files are not followed: record where, so checks can say so.
            conf.includes.push_back(l.line);
            continue;
        }
        Entry e = entry_of(l, source);
        if (e.first_key == "nodename") {
            if (e.first_value.empty()) throw InputError(source, e.line, "NodeName", "empty node name");
            if (iequals(e.first_value, "default")) {
                for (const auto& [k, v] : e.kv)
                    if (k != "nodename") node_defaults[k] = v;
                continue;
            }
            NodeLine n;
            n.line = e.line;
            n.attrs = node_defaults;
            for (const auto& [k, v] : e.kv) n.attrs[k] = v;
            n.names = budget.expand(e.first_value, e.line, "NodeName");
            n.gres = parse_gres(get(n.attrs, "gres"), source, e.line);
            std::string feat = get(n.attrs, "feature");
            if (feat.empty()) feat = get(n.attrs, "features");
            n.features = split_commas(feat);
            conf.nodes.push_back(std::move(n));
        } else if (e.first_key == "partitionname") {
            if (e.first_value.empty()) throw InputError(source, e.line, "PartitionName", "empty partition name");
            if (iequals(e.first_value, "default")) {
                for (const auto& [k, v] : e.kv)
                    if (k != "partitionname") part_defaults[k] = v;
                continue;
            }
            PartitionLine p;
            p.line = e.line;
            p.name = e.first_value;
            auto kv = part_defaults;
            for (const auto& [k, v] : e.kv) kv[k] = v;
            std::string nodes = get(kv, "nodes");
            if (iequals(nodes, "all")) p.all_nodes = true;
            else p.nodes = budget.expand(nodes, e.line, "Nodes");
            conf.partitions.push_back(std::move(p));
        } else if (e.first_key == "nodeset") {
            conf.nodesets.push_back(e.first_value);
        } else {
            // Global keys may share a line with others; look at every key of the line.
            for (const auto& [k, v] : e.kv) {
                conf.settings[k] = Setting{v, e.line};
                if (k == "clustername") {
                    conf.cluster_name = v;
                    conf.cluster_name_line = e.line;
                } else if (k == "grestypes") {
                    conf.gres_types = split_commas(lower(v));
                    conf.gres_types_line = e.line;
                } else if (k == "topologyplugin") {
                    conf.topology_plugin = v;
                }
            }
        }
    }
    return conf;
}

GresConf parse_gres_conf(const std::string& text, const std::string& source) {
    GresConf conf;
    conf.path = source;
    conf.present = true;
    NameBudget budget(source);
    for (const auto& l : logical_lines(text)) {
        Entry e = entry_of(l, source);
        GresLine g;
        g.line = e.line;
        g.name = lower(get(e.kv, "name"));
        g.type = get(e.kv, "type");
        g.autodetect = lower(get(e.kv, "autodetect"));
        std::string nodes = get(e.kv, "nodename");
        if (!nodes.empty()) g.node_names = budget.expand(nodes, e.line, "NodeName");
        if (g.name.empty()) {
            if (!g.autodetect.empty()) {
                if (g.node_names.empty()) conf.autodetect = g.autodetect;
                else conf.lines.push_back(std::move(g));  // per-node AutoDetect
                continue;
            }
            throw InputError(source, e.line, "Name", "gres.conf line without Name= (e.g. Name=gpu)");
        }
        std::string files = get(e.kv, "file");
        if (files.empty()) files = get(e.kv, "multiplefiles");
        if (!files.empty()) g.files = budget.expand(files, e.line, "File");
        if (e.kv.count("count")) g.count = parse_count(get(e.kv, "count"), source, e.line, "Count");
        conf.lines.push_back(std::move(g));
    }
    return conf;
}

TopologyConf parse_topology_conf(const std::string& text, const std::string& source) {
    TopologyConf conf;
    conf.path = source;
    conf.present = true;
    NameBudget budget(source);
    for (const auto& l : logical_lines(text)) {
        Entry e = entry_of(l, source);
        if (e.first_key != "switchname")
            throw InputError(source, e.line, e.first_key, "expected a SwitchName= line");
        SwitchLine s;
        s.line = e.line;
        s.name = e.first_value;
        if (s.name.empty()) throw InputError(source, e.line, "SwitchName", "empty switch name");
        if (s.name.find_first_of("[],") != std::string::npos)
            throw InputError(source, e.line, "SwitchName", "'" + s.name + "' must be one name, not a list");
        for (const auto& [k, v] : e.kv) {
            if (k == "switchname") continue;
            if (k == "switches") s.switches = budget.expand(v, e.line, "Switches");
            else if (k == "nodes") s.nodes = budget.expand(v, e.line, "Nodes");
            else if (k == "linkspeed") s.link_speed = v;
            else throw InputError(source, e.line, k, "unknown key in topology.conf (SwitchName, Switches, Nodes, LinkSpeed)");
        }
        conf.switches.push_back(std::move(s));
    }
    return conf;
}

SlurmFiles load_slurm_files(const std::string& slurm_conf_path) {
    namespace fs = std::filesystem;
    SlurmFiles site;
    site.slurm = parse_slurm_conf(read_text_file(slurm_conf_path), slurm_conf_path);
    fs::path dir = fs::path(slurm_conf_path).parent_path();
    std::error_code ec;
    fs::path gres = dir / "gres.conf";
    if (fs::is_regular_file(gres, ec)) site.gres = parse_gres_conf(read_text_file(gres.string()), gres.string());
    else site.gres.path = gres.string();
    fs::path topo = dir / "topology.conf";
    if (fs::is_regular_file(topo, ec)) site.topology = parse_topology_conf(read_text_file(topo.string()), topo.string());
    else site.topology.path = topo.string();
    return site;
}

}  // namespace spiderflow::slurm
