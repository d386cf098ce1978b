// Reads back what is installed on an interface from `tc qdisc|class|filter show dev IF` output,
// so job start/end and `spiderflow coflow set-class` act on the state the kernel really has
// (another job's prolog may have set up the root; a job's marking must survive a change).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace spiderflow::coflow {

// True when `tc qdisc show dev IF` lists our HTB root ("qdisc htb 1: root").
bool has_htb_root(const std::string& qdisc_show);
// Minor ids of the job classes in `tc class show dev IF` (HTB classes 1:x other than the parent
// 1:1 and the default class), in the order listed.
std::vector<int> job_class_minors(const std::string& class_show);
// The DSCP a u32 filter matches (`tc filter show dev IF parent 1: prio P`: "match
// 00b80000/00fc0000 at 0" is TOS 0xb8 = DSCP 46); empty when no such match is listed.
std::optional<int> filter_dscp(const std::string& filter_show);

}  // namespace spiderflow::coflow
