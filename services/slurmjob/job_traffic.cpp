#include "services/slurmjob/job_traffic.h"

#include <algorithm>
#include <cstdio>
#include <exception>

#include "common/coflow/tc_state.h"
#include "common/util/errors.h"
#include "common/util/file_lock.h"
#include "services/launch/launch_env.h"

namespace spiderflow::slurmjob {

using namespace spiderflow::coflow;

namespace {

std::string minor_hex(int job) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%x", tc_minor(job));
    return buf;
}

std::string show(CommandRunner& runner, const Argv& argv) { return runner.run(argv, true, true).output; }

void put(EnvList& env, const std::string& k, const std::string& v) {
    for (auto& [name, value] : env) {
        if (name == k) {
            value = v;
            return;
        }
    }
    env.push_back({k, v});
}

}  // namespace

int parse_traffic_level(const std::string& text) {
    if (text.empty()) return kDefaultTrafficLevel;
    if (text.size() == 1 && text[0] >= '0' && text[0] < '0' + TrafficClass::kLevels) return text[0] - '0';
    throw InputError("job", 0, env::kTrafficLevel,
                     "expected a level 0.." + std::to_string(TrafficClass::kLevels - 1) + ", got '" + text + "'");
}

TcLink wan_link(const SpiderflowConf& config) { return {config.wan_interface, static_cast<double>(config.wan_rate_mbit)}; }

TcMatch wan_match(const SpiderflowConf& config) { return config.tc_match == "fwmark" ? TcMatch::fwmark : TcMatch::dscp; }

std::vector<TcCommand> job_start_commands(const SpiderflowConf& config, const TrafficClass& c, bool root_present) {
    const TcLink link = wan_link(config);
    std::vector<TcCommand> out = root_present ? std::vector<TcCommand>{} : tc_setup(link);
    for (auto& cmd : tc_install(link, c, wan_match(config))) out.push_back(std::move(cmd));
    return out;
}

std::vector<TcCommand> job_end_commands(const SpiderflowConf& config, int job, bool other_jobs_left) {
    const TcLink link = wan_link(config);
    std::vector<TcCommand> out = tc_remove(link, job);
    if (!other_jobs_left) {
        for (auto& cmd : tc_clear(link)) out.push_back(std::move(cmd));
    }
    return out;
}

TcOutcome start_job_traffic(const SpiderflowConf& config, int job, const std::string& level_text, CommandRunner& runner,
                            const std::string& lock_path) {
    if (!config.traffic_control) return {false, "traffic control is off (traffic_control = no)"};
    try {
        int level = kDefaultTrafficLevel;
        std::string note;
        try {
            level = parse_traffic_level(level_text);
        } catch (const InputError& e) {
            note = std::string(" (") + e.what() + "; using best effort)";
        }
        const TrafficClass c = class_for_level(job, level);
        const FileLock lock = FileLock::wait_for(lock_path);  // no /run/lock: unlocked
        const bool root = has_htb_root(show(runner, {"tc", "qdisc", "show", "dev", config.wan_interface}));
        const std::string err = run_tc_commands(job_start_commands(config, c, root), runner, nullptr);
        if (!err.empty()) return {false, err};
        return {true, "job " + std::to_string(job) + " class 1:" + minor_hex(job) + " on " +
                          config.wan_interface + ": level " + std::to_string(c.level) + " dscp " +
                          std::to_string(c.dscp) + " share " + std::to_string(c.share) + note};
    } catch (const std::exception& e) {
        return {false, e.what()};
    }
}

TcOutcome end_job_traffic(const SpiderflowConf& config, int job, CommandRunner& runner, const std::string& lock_path) {
    if (!config.traffic_control) return {false, "traffic control is off (traffic_control = no)"};
    try {
        const FileLock lock = FileLock::wait_for(lock_path);  // no /run/lock: unlocked
        std::vector<int> minors = job_class_minors(show(runner, {"tc", "class", "show", "dev", config.wan_interface}));
        minors.erase(std::remove(minors.begin(), minors.end(), tc_minor(job)), minors.end());
        const bool others = !minors.empty();
        // The job's class may already be gone (removed by hand, or the prolog failed): removing
        // it again fails harmlessly, so the end never depends on the start having worked.
        std::vector<TcCommand> cmds = job_end_commands(config, job, others);
        for (auto& cmd : cmds) cmd.may_fail = true;
        const std::string err = run_tc_commands(cmds, runner, nullptr);
        if (!err.empty()) return {false, err};
        // Check, not assume: the job's class must be gone.
        const std::vector<int> left = job_class_minors(show(runner, {"tc", "class", "show", "dev", config.wan_interface}));
        if (std::find(left.begin(), left.end(), tc_minor(job)) != left.end())
            return {false, "job " + std::to_string(job) + "'s class is still on " + config.wan_interface};
        return {true, "job " + std::to_string(job) + " class removed from " + config.wan_interface +
                          (others ? "" : " (last job: HTB root removed)")};
    } catch (const std::exception& e) {
        return {false, e.what()};
    }
}

std::vector<TcCommand> change_job_class(const TcLink& link, TcMatch match, int job, int level,
                                        std::optional<double> share, CommandRunner& runner) {
    validate(link);
    if (job < 1) throw InputError("set-class", 0, "--job", "must be a positive job id");
    if (level < 0 || level >= TrafficClass::kLevels)
        throw InputError("set-class", 0, "--level", "must be 0.." + std::to_string(TrafficClass::kLevels - 1));
    const std::vector<int> minors = job_class_minors(show(runner, {"tc", "class", "show", "dev", link.dev}));
    if (std::find(minors.begin(), minors.end(), tc_minor(job)) == minors.end())
        throw InputError("set-class", 0, "--job", "job " + std::to_string(job) + " has no class on " + link.dev);
    TrafficClass c = class_for_level(job, level);
    if (share) c.share = *share;
    if (match == TcMatch::dscp) {
        // The job marks its packets with the DSCP it started with; the filter must keep matching it.
        const auto dscp = filter_dscp(show(runner, {"tc", "filter", "show", "dev", link.dev, "parent", "1:", "prio",
                                                    std::to_string(tc_minor(job))}));
        if (!dscp) throw InputError("set-class", 0, "--job", "job " + std::to_string(job) + " has no DSCP filter on " + link.dev);
        c.dscp = *dscp;
    }
    return tc_install(link, c, match);
}

std::vector<std::string> apply_job_class_env(EnvList& env, const SpiderflowConf& config, const std::string& level_text) {
    if (!config.traffic_control && !config.nccl_group_classes && level_text.empty()) return {};
    const TrafficClass c = class_for_level(0, parse_traffic_level(level_text));
    if (!config.nccl_group_classes) {
        for (const auto& [k, v] : nccl_job_env(c)) put(env, k, v);
        return {};
    }
    // NCCL_IB_TC/SL override a communicator's own trafficClass: they must not be set.
    const std::vector<std::string> unset = {"NCCL_IB_TC", "NCCL_IB_SL"};
    env.erase(std::remove_if(env.begin(), env.end(),
                             [&](const auto& kv) { return std::find(unset.begin(), unset.end(), kv.first) != unset.end(); }),
              env.end());
    for (const auto& [k, v] : nccl_group_env(c)) put(env, k, v);
    return unset;
}

}  // namespace spiderflow::slurmjob
