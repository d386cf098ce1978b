// The per-run figures of a federation simulation, from its per-job outcomes; and the CSV and
// text forms `spiderflow simulate` writes.
#pragma once

#include <string>
#include <vector>

#include "services/fedsim/fed_simulator.h"

namespace spiderflow::fedsim {

// decision_wall_s: wall time of every placement attempt; busy_gpu_s: GPU-seconds held.
RunSummary summarize(const std::vector<JobOutcome>& jobs, const std::vector<double>& decision_wall_s,
                     double busy_gpu_s, int total_gpus);

// One header line, then one line per job (trace order). Wall-clock columns are left out, so
// two runs of the same inputs write the same bytes.
std::string jobs_csv(const FedSimResult& result);
std::string summary_csv_header();
std::string summary_csv_row(const RunSummary& s);
std::string timeline_csv(const FedSimResult& result);
// Every decision (FedSimOptions::log_decisions), one line each, wall time included.
std::string decisions_csv(const FedSimResult& result);
// A few lines for a person; without timing, the wall-clock figures are left out (diffable).
std::string summary_text(const RunSummary& s, bool timing = true);

}  // namespace spiderflow::fedsim
