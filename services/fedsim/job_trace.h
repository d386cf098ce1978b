// A federation's job stream, the input of `spiderflow simulate`, as a CSV file with a header
// line. Columns are found by name (any order; an unknown column is refused, so a typo is not
// silently ignored):
//   submit_s      seconds from the start of the trace, >= 0
//   model         a catalog model name (`spiderflow catalog`)
//   gpus          N (exactly N GPUs) or MIN-MAX (any count in the range; the planner picks)
//   home          the cluster the job is submitted on
//   and its work, exactly one of:
//   iterations    training iterations
//   tokens        training tokens (iterations = tokens / (global_batch x seq_len), rounded up)
//   duration_s    seconds the job ran in the recorded trace on its GPUs: converted to iterations
//                 with the job's iteration time on its home cluster alone (a trace of another
//                 site's history says how long, not how many iterations)
//   optional:     id, global_batch (default 512), seq_len (default 2048), priority (default 0;
//                 higher is served first)
#pragma once

#include <istream>
#include <string>
#include <vector>

#include "common/model/catalog.h"

namespace spiderflow::fedsim {

enum class WorkUnit { iterations, tokens, duration_s };

struct TraceJob {
    std::string id;
    double submit_s = 0;
    std::string model;
    int gpus_min = 0;
    int gpus_max = 0;            // == gpus_min for a fixed count
    std::string home;
    WorkUnit work_unit = WorkUnit::iterations;
    double work = 0;             // in work_unit
    int global_batch = 512;
    int seq_len = 2048;
    int priority = 0;
    int line = 0;                // in the trace file, for messages
    double tokens_per_iteration() const { return static_cast<double>(global_batch) * seq_len; }
};

struct JobTrace {
    std::string source;
    std::vector<TraceJob> jobs;  // in file order
};

// Throws InputError naming the source, the 1-based line and the column for any bad field,
// an unknown model, a missing or unknown column, or no work column.
JobTrace parse_job_trace(std::istream& in, const std::string& source, const Catalog& catalog);
JobTrace read_job_trace(const std::string& path, const Catalog& catalog);

// The same format, one line per job (what the generator and the Helios converter write).
std::string job_trace_csv(const JobTrace& trace);

const char* to_string(WorkUnit u);

}  // namespace spiderflow::fedsim
