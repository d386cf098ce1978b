// The start barrier of a cross-site job's parts, in `spiderflow launch`: no part's ranks start
// until every part's launcher runs, then all start at once. The parts' batch steps start up to
// an agent interval apart; with the barrier their ranks start within milliseconds of each other
// instead, and a part that never comes ends every part, saying which. The part holding rank 0
// answers at MASTER_ADDR:MASTER_PORT (its batch host: the first node of its allocation, where
// the broker points MASTER_ADDR) until all have come, before its ranks take the port over; the
// others ask there (cpp-httplib, one long-poll each).
#pragma once

#include <iosfwd>
#include <string>

namespace spiderflow {

struct BarrierParty {
    std::string xjob;          // SPIDERFLOW_XJOB
    int part = 0;              // SPIDERFLOW_XJOB_PART: 0 answers, the others ask
    int parts = 0;             // the plan's clusters
    std::string master_addr;   // MASTER_ADDR
    int master_port = 0;       // MASTER_PORT
    double timeout_s = 0;      // how long a part waits for the others
    // Part 0: how long it lets the others hang up after answering them, before it closes the
    // port for its ranks (a few round trips of the widest WAN crossing).
    double hangup_grace_s = 0.5;
};

// Returns the seconds waited once every part has come; throws std::runtime_error naming the
// parts that did not (or what went wrong) when the bound passes. Progress lines go to `log`.
double meet_start_barrier(const BarrierParty& party, std::ostream& log);

}  // namespace spiderflow
