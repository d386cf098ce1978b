// What the broker and the agents say to each other about a link probe (services/broker/
// probe_board.h coordinates them; services/agent/probe_runner.h carries the orders out), and its
// JSON on the wire (doc/broker-api.md, "Link probes").
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace spiderflow::probe {

// What one agent is to do for one probe.
struct ProbeOrder {
    std::string probe;
    enum class Kind { Serve, Measure, End } kind = Kind::Serve;
    std::string link;  // "a-b": a measures, b serves
    int port = 0;
    std::string host;  // Measure: the serving node, as other sites reach it
};

// What an agent says of one probe.
struct ProbeReport {
    std::string probe;
    enum class Kind { Serving, Measured, Ended, Failed } kind = Kind::Serving;
    std::string host;             // Serving
    double gbps = 0, rtt_ms = 0;  // Measured
    std::string reason;           // Failed
};

const char* probe_order_name(ProbeOrder::Kind k);
const char* probe_report_name(ProbeReport::Kind k);

nlohmann::ordered_json probe_order_to_json(const ProbeOrder& o);
nlohmann::ordered_json probe_report_to_json(const ProbeReport& r);
// Strict: unknown keys and kinds, a malformed host or link are InputError(source, 0, path...).
ProbeOrder probe_order_from_json(const nlohmann::json& j, const std::string& source, const std::string& path);
ProbeReport probe_report_from_json(const nlohmann::json& j, const std::string& source, const std::string& path);

// The name and comment of a probe's Slurm jobs ("spiderflow-probe-p7-serve"), by which an agent
// finds them again after a restart. The serve job says in its comment that it listens (a job
// Slurm shows running may not have started its program yet, or may fail to); the measure job
// leaves its figure there after kProbeResultPrefix (+ a link_measured delta); either that fails
// says why there after kProbeFailedPrefix, which the agent puts in the probe's reason.
std::string probe_job_name(const std::string& probe, const std::string& role);
// Where a probe job's output goes on its node: /tmp/NAME-JOBID.out (job_id "%j", Slurm's own
// pattern, when submitting), so that probes of one id from two federations or two broker runs
// never write one file.
std::string probe_job_output(const std::string& job_name, const std::string& job_id = "%j");
constexpr const char* kProbeServingComment = "spiderflow-probe-serving";
constexpr const char* kProbeResultPrefix = "spiderflow-probe-result ";
constexpr const char* kProbeFailedPrefix = "spiderflow-probe-failed ";

}  // namespace spiderflow::probe
