#include "common/coflow/traffic_class.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "common/util/errors.h"

namespace spiderflow::coflow {

namespace {

std::string hex(int v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%x", v);
    return buf;
}

std::string mbit(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0fkbit", std::max(1.0, v * 1000));
    return buf;
}

// HTB's quantum defaults to rate / 10, which the kernel finds too big above ~16 Mbit/s; one MTU
// to 200 kB keeps borrowing fair and the kernel quiet.
std::string quantum(double rate_mbit) {
    const double bytes = rate_mbit * 1e6 / 8 / 10;
    return std::to_string(static_cast<long>(std::clamp(bytes, 1514.0, 200000.0)));
}

// Share of each level when all levels are present, before normalisation: 8, 4, 2, 1, 1, 1.
double level_weight(int level) { return level < 3 ? static_cast<double>(8 >> level) : 1.0; }

constexpr int kDefaultMinor = 0xffff;

}  // namespace

int dscp_for_level(int level) {
    static const int kDscp[TrafficClass::kLevels] = {46, 34, 26, 18, 10, 0};
    return kDscp[std::clamp(level, 0, TrafficClass::kLevels - 1)];
}

double share_for_level(int level) {
    double total = 0;
    for (int l = 0; l < TrafficClass::kLevels; ++l) total += level_weight(l);
    return 0.95 * level_weight(std::clamp(level, 0, TrafficClass::kLevels - 1)) / total;
}

TrafficClass class_for_level(int job, int level) {
    TrafficClass c;
    c.job = job;
    c.level = std::clamp(level, 0, TrafficClass::kLevels - 1);
    c.dscp = dscp_for_level(c.level);
    c.share = share_for_level(c.level);
    return c;
}

std::vector<TrafficClass> classes_for_order(const std::vector<int>& jobs) {
    std::vector<TrafficClass> out;
    double total = 0;
    for (size_t i = 0; i < jobs.size(); ++i) {
        TrafficClass c;
        c.job = jobs[i];
        c.level = std::min(static_cast<int>(i), TrafficClass::kLevels - 1);
        c.dscp = dscp_for_level(c.level);
        c.share = level_weight(c.level);
        total += c.share;
        out.push_back(c);
    }
    // Leave 5% for the default class (traffic that is no job's).
    for (auto& c : out) c.share = 0.95 * c.share / total;
    return out;
}

std::map<std::string, std::string> nccl_job_env(const TrafficClass& c) {
    return {{"NCCL_IB_TC", std::to_string(c.dscp << 2)}, {"NCCL_IB_SL", std::to_string(std::min(c.level, 15))}};
}

GroupTrafficClasses group_traffic_classes(const TrafficClass& c) {
    const int lower = dscp_for_level(c.level + 1);
    return {c.dscp << 2, c.dscp << 2, lower << 2};
}

void validate(const TcLink& link) {
    const std::string& d = link.dev;
    // Interface names: 1..15 chars, no '/', whitespace or shell-special characters.
    const bool ok = !d.empty() && d.size() <= 15 && std::all_of(d.begin(), d.end(), [](char ch) {
        return std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' || ch == '.' || ch == '@';
    });
    if (!ok) throw InputError("tc", 0, "--dev", "bad interface name '" + d + "'");
    if (!(link.rate_mbit > 0) || link.rate_mbit > 1e7) throw InputError("tc", 0, "--link-mbit", "must be in (0, 1e7]");
}

void validate(const TrafficClass& c) {
    if (c.job < 1) throw InputError("tc", 0, "--job", "must be a positive job id");
    if (c.dscp < 0 || c.dscp > 63) throw InputError("tc", 0, "--dscp", "must be 0..63");
    if (!(c.share > 0) || c.share > 1) throw InputError("tc", 0, "--share", "must be in (0, 1]");
    if (c.level < 0 || c.level > 7) throw InputError("tc", 0, "--level", "must be 0..7");
}

int tc_minor(int job) { return 0x100 + job % 0xfe00; }

std::vector<TcCommand> tc_setup(const TcLink& l) {
    validate(l);
    const std::string rate = mbit(l.rate_mbit);
    return {
        {{"tc", "qdisc", "replace", "dev", l.dev, "root", "handle", "1:", "htb", "default", hex(kDefaultMinor)}},
        {{"tc", "class", "replace", "dev", l.dev, "parent", "1:", "classid", "1:1", "htb", "rate", rate, "ceil", rate,
          "quantum", quantum(l.rate_mbit)}},
        // Traffic of no job: a small guarantee, may borrow, lowest priority.
        {{"tc", "class", "replace", "dev", l.dev, "parent", "1:1", "classid", "1:" + hex(kDefaultMinor), "htb", "rate",
          mbit(l.rate_mbit * 0.05), "ceil", rate, "prio", "7", "quantum", quantum(l.rate_mbit * 0.05)}},
    };
}

std::vector<TcCommand> tc_install(const TcLink& l, const TrafficClass& c, TcMatch match) {
    validate(l);
    validate(c);
    const std::string minor = hex(tc_minor(c.job));
    const std::string prio = std::to_string(tc_minor(c.job));   // filter prio = class: one filter per job
    std::vector<TcCommand> out = {
        {{"tc", "class", "replace", "dev", l.dev, "parent", "1:1", "classid", "1:" + minor, "htb", "rate",
          mbit(l.rate_mbit * c.share), "ceil", mbit(l.rate_mbit), "prio", std::to_string(c.level), "quantum",
          quantum(l.rate_mbit * c.share)}},
        // Drop the job's old filter first so a change of DSCP/mark does not leave two.
        {{"tc", "filter", "del", "dev", l.dev, "parent", "1:", "prio", prio}, true},
    };
    if (match == TcMatch::dscp)
        out.push_back({{"tc", "filter", "add", "dev", l.dev, "parent", "1:", "protocol", "ip", "prio", prio, "u32",
                        "match", "ip", "dsfield", "0x" + hex(c.dscp << 2), "0xfc", "flowid", "1:" + minor}});
    else
        out.push_back({{"tc", "filter", "add", "dev", l.dev, "parent", "1:", "protocol", "ip", "prio", prio, "handle",
                        std::to_string(c.job), "fw", "flowid", "1:" + minor}});
    return out;
}

std::vector<TcCommand> tc_remove(const TcLink& l, int job) {
    validate(l);
    if (job < 1) throw InputError("tc", 0, "--job", "must be a positive job id");
    const std::string minor = hex(tc_minor(job));
    return {
        {{"tc", "filter", "del", "dev", l.dev, "parent", "1:", "prio", std::to_string(tc_minor(job))}, true},
        {{"tc", "class", "del", "dev", l.dev, "classid", "1:" + minor}},
    };
}

std::vector<TcCommand> tc_clear(const TcLink& l) {
    TcLink any = l;
    if (!(any.rate_mbit > 0)) any.rate_mbit = 1;   // clearing needs no rate
    validate(any);
    return {{{"tc", "qdisc", "del", "dev", l.dev, "root"}}};
}

std::string to_string(const Argv& argv) {
    std::string s;
    for (const auto& a : argv) s += (s.empty() ? "" : " ") + a;
    return s;
}

std::string run_tc_commands(const std::vector<TcCommand>& cmds, CommandRunner& runner,
                            const std::function<void(const std::string&)>& log) {
    for (const auto& c : cmds) {
        if (log) log(to_string(c.argv));
        const CommandResult r = runner.run(c.argv, c.may_fail, false);
        if (r.status != 0 && !c.may_fail)
            return "tc failed (exit " + std::to_string(r.status) + "): " + to_string(c.argv);
    }
    return {};
}

}  // namespace spiderflow::coflow
