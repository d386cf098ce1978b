// Enforcement: a schedule becomes traffic classes on real hosts.
//  - RDMA (NCCL over IB/RoCE): per job NCCL_IB_TC (the IP traffic class byte = DSCP << 2) and
//    NCCL_IB_SL; or, with NCCL >= 2.26, one class per communicator group (PP, DP, EP) handed to
//    the framework, in which case NCCL_IB_TC/NCCL_IB_SL must stay unset (they override it).
//  - Sockets: Linux tc on the WAN interface: an HTB root, one class per job (guaranteed share,
//    borrowing up to the link, HTB priority for spare bandwidth), selected by a u32 filter on
//    the DSCP bits or by a firewall mark. Commands are built here as argument vectors (no shell)
//    and run by `spiderflow coflow tc`.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/coflow/command_runner.h"

namespace spiderflow::coflow {

struct TrafficClass {
    int job = 0;                 // Slurm job id
    int level = 0;               // 0 = highest priority; at most kLevels - 1
    int dscp = 0;                // 0..63
    double share = 0;            // guaranteed fraction of the WAN link (0..1]
    static constexpr int kLevels = 6;
};

// DSCP per level: EF, AF41, AF31, AF21, AF11, best effort.
int dscp_for_level(int level);

// Guaranteed share of a job at `level` when the node does not know the other jobs (the SPANK
// plugin at job start): its weight over the weights of all levels, of 95% of the link, so that
// one class of every level together never oversubscribe the link.
double share_for_level(int level);
// A job's class on its own: DSCP and share from the level (clamped to 0..kLevels - 1).
TrafficClass class_for_level(int job, int level);

// Classes for jobs listed highest priority first (e.g. the llm scheduler's job order).
// Shares decrease with level and sum to at most 1; levels beyond kLevels - 1 share the last.
std::vector<TrafficClass> classes_for_order(const std::vector<int>& jobs_in_priority_order);

// NCCL_IB_TC / NCCL_IB_SL for a job (SL = level; the site's SL-to-VL arbitration decides what a
// level buys on the fabric).
std::map<std::string, std::string> nccl_job_env(const TrafficClass& c);
// Per communicator group (NCCL 2.26+ communicator config "trafficClass"), as IP traffic class
// bytes (DSCP << 2): EP and PP traffic at the job's class, DP one level lower (Hermod: EP and PP
// above DP); the launch hands them to the framework.
struct GroupTrafficClasses {
    int ep = 0, pp = 0, dp = 0;
};
GroupTrafficClasses group_traffic_classes(const TrafficClass& c);

enum class TcMatch { dscp, fwmark };

struct TcLink {
    std::string dev;             // WAN interface
    double rate_mbit = 0;        // what the link carries; HTB shapes to it
};

struct TcCommand {
    Argv argv;
    bool may_fail = false;       // clean-up steps that fail when there is nothing to remove
};

// Throws InputError for a bad interface name, rate, job id, share or DSCP.
void validate(const TcLink& link);
void validate(const TrafficClass& c);

// HTB minor class id of a job (0x100 + job % 0xfe00).
int tc_minor(int job);
// Creates (or replaces) the root HTB qdisc, the parent class and the default class.
std::vector<TcCommand> tc_setup(const TcLink& link);
// Installs or changes one job's class and its filter (idempotent: replace, then filter by prio).
std::vector<TcCommand> tc_install(const TcLink& link, const TrafficClass& c, TcMatch match);
// Removes one job's filter and class.
std::vector<TcCommand> tc_remove(const TcLink& link, int job);
// Removes everything we installed on the interface.
std::vector<TcCommand> tc_clear(const TcLink& link);

std::string to_string(const Argv& argv);

// Runs the commands in order through `runner`, telling `log` each one first; stops at the first
// failing step that may not fail. Returns empty on success, else which command failed and how.
std::string run_tc_commands(const std::vector<TcCommand>& cmds, CommandRunner& runner,
                            const std::function<void(const std::string&)>& log);

}  // namespace spiderflow::coflow
