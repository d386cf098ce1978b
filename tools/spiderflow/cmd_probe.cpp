// `spiderflow probe`: measures an inter-cluster link between two compute nodes with iperf3
// (services/probe) and, asked to, publishes it to the broker as the measuring cluster's
// link_measured delta, where it replaces the topology's declared figure while it is recent.
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <memory>
#include <string>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "common/coflow/command_runner.h"
#include "common/site/site_delta.h"
#include "common/util/cli_options.h"
#include "common/util/errors.h"
#include "common/util/parse_number.h"
#include "common/util/utf8_prefix.h"
#include "services/broker_client/broker_api_types.h"
#include "services/probe/link_probe.h"
#include "services/probe/probe_protocol.h"
#include "services/slurm_api/slurm_api.h"
#include "tools/spiderflow/command.h"
#include "tools/spiderflow/federation_view.h"

namespace spiderflow::cli {
namespace {

constexpr const char* kUsage =
    "usage: spiderflow probe now --link A-B --broker URL --token-file FILE [--wait S]   (also: --now)\n"
    "       spiderflow probe serve [--port P]\n"
    "       spiderflow probe measure --to HOST --link A-B [options]\n\n"
    "`now` has the broker coordinate a measurement of link A-B at once: cluster B's agent starts a\n"
    "serve job on one of its compute nodes, cluster A's agent a measure job to it, and the figure is\n"
    "published as A's measurement (the agents do the same on agent.conf's probe_interval).\n\n"
    "Measures what a plan depends on between two clusters, on their compute nodes: TCP bandwidth over\n"
    "several streams and the round-trip time, with iperf3. `serve` runs on the far side's node and\n"
    "answers one measurement; `measure` runs on this side's node, prints the figure and, with\n"
    "--publish, sends it to the broker as cluster A's measurement of link A-B. The planner then uses\n"
    "it instead of the topology's declared figure while it is younger than spiderflow.conf's\n"
    "measured_link_max_age (doc/federation.md). Both sides are short Slurm jobs, e.g.\n"
    "  far side:  srun -N1 -t 2 spiderflow probe serve --port 5301\n"
    "  this side: srun -N1 -t 2 spiderflow probe measure --to NODE --port 5301 --link oregon-tokyo \\\n"
    "                 --publish --broker URL --token-file FILE\n\n";

constexpr const char* kNowUsage =
    "usage: spiderflow probe now --link A-B --broker URL --token-file FILE [--ca FILE] [--wait S]\n\n"
    "Asks the broker for a probe of link A-B now and follows it: cluster B's agent starts `spiderflow\n"
    "probe serve` as a short Slurm job, cluster A's agent then `spiderflow probe measure` to that node,\n"
    "and publishes the figure as A's measurement. Needs the token of cluster A or B (an admin's).\n\n";

constexpr const char* kServeUsage =
    "usage: spiderflow probe serve [--port P]\n\n"
    "Answers one `spiderflow probe measure` from the other cluster (iperf3 --server --one-off), then\n"
    "exits. Run it as a short Slurm job on the node to measure to: the port is open only while it runs.\n\n";

constexpr const char* kMeasureUsage =
    "usage: spiderflow probe measure --to HOST --link A-B [--port P] [--streams N] [--seconds S]\n"
    "                                [--format text|json|delta] [--publish --broker URL --token-file FILE [--ca FILE]]\n\n"
    "Measures the link to HOST (a compute node of cluster B running `spiderflow probe serve`) from\n"
    "this node (of cluster A).\n\n";

constexpr const char* kFooter =
    "\nExit status: 0 measured (and published), 2 bad options, 3 the measurement failed or the broker\n"
    "refused it.\n";

std::pair<std::string, std::string> link_ends(const std::string& link, const char* command) {
    const auto dash = link.find('-');
    if (link.empty()) throw InputError(command, 0, "--link", "is required (A-B: A measures, B is the far end)");
    if (dash == std::string::npos || dash == 0 || dash + 1 == link.size() || link.find('-', dash + 1) != std::string::npos)
        throw InputError(command, 0, "--link", "must be A-B (A measures, B is the far end), not '" + link + "'");
    return {link.substr(0, dash), link.substr(dash + 1)};
}

// This Slurm job's id for --job-comment; throws InputError outside a job.
uint32_t own_job(const char* command) {
    const char* id = std::getenv("SLURM_JOB_ID");
    const auto n = to_int<uint32_t>(id != nullptr ? id : "", 1);
    if (!n) throw InputError(command, 0, "--job-comment", "is for a Slurm job (SLURM_JOB_ID is not set)");
    return *n;
}

// Leaves `text` in this job's comment, where the agent that started it reads it; false (said on
// stderr) when slurmctld refuses.
bool tell_agent(uint32_t job_id, std::string text) {
    job_desc_msg_t d = slurm_api::update_of(job_id);
    d.comment = text.data();
    if (slurm_update_job(&d) == SLURM_SUCCESS) return true;
    std::cerr << "spiderflow: probe: cannot write job " << job_id << "'s comment: " << slurm_api::last_error() << "\n";
    return false;
}

// How long `serve` waits for its ports while something else holds them: the server of the probe
// before this one, on the same node, may take a few seconds to go after its measurement.
constexpr double kServePortWaitS = 30;

// The failure said on stderr, and in the job's comment for the agent when inside its probe job.
int probe_failed(uint32_t job_id, const std::string& why) {
    std::cerr << "spiderflow: probe: " << why << "\n";
    if (job_id != 0) tell_agent(job_id, probe::kProbeFailedPrefix + utf8_prefix(why, 400));
    return 3;
}

int run_serve(const std::vector<std::string>& args) {
    int port = 5201;
    bool job_comment = false;
    OptionTable t("spiderflow probe serve", kServeUsage, kFooter, 18);
    t.value("--port", "P", "iperf3's port (default 5201, iperf3's); the RTT is measured on the next one",
            integer(&port, 1, 65535));
    t.flag("--job-comment", "inside a Slurm job (the agent's probe job): say in the job's comment\n"
           "once it listens, or why it could not", set(&job_comment));
    if (!t.parse_or_help(args, 1, std::cout)) return kExitOk;
    const uint32_t job_id = job_comment ? own_job("spiderflow probe serve") : 0;
    std::unique_ptr<probe::RttListener> rtt;
    try {
        rtt = std::make_unique<probe::RttListener>(probe::rtt_port(port), kServePortWaitS);
        probe::await_free_port(port, kServePortWaitS);
    } catch (const InputError& e) {
        return probe_failed(job_id, e.problem());
    }
    if (job_comment && !tell_agent(job_id, probe::kProbeServingComment)) return 3;
    std::fprintf(stderr, "spiderflow: probe: waiting for one measurement on ports %d (iperf3) and %d (RTT)\n", port,
                 probe::rtt_port(port));
    coflow::ProcessRunner runner;
    const coflow::CommandResult r = runner.run(probe::server_argv(port), false, false);
    if (r.status == 127) return probe_failed(job_id, "iperf3 could not be started (apt-get install iperf3)");
    if (r.status != 0) return probe_failed(job_id, "iperf3's server exited with status " + std::to_string(r.status));
    return kExitOk;
}

int run_measure(const std::vector<std::string>& args) {
    probe::ProbeOptions o;
    std::string link, format = "text", url, token_file, ca;
    bool publish = false, job_comment = false;
    OptionTable t("spiderflow probe measure", kMeasureUsage, kFooter, 22);
    t.value("--to", "HOST", "the far side's node, running `spiderflow probe serve`", store(&o.host));
    t.value("--link", "A-B", "the link measured: this cluster, then the far one", store(&link));
    t.value("--port", "P", "the far side's port (default 5201)", integer(&o.port, 1, 65535));
    t.value("--streams", "N", "parallel TCP streams (default 4)", integer(&o.streams, 1, 128));
    t.value("--seconds", "S", "measuring time (default 5, 1 to 60)", number(&o.seconds, 1, 60));
    t.value("--format", "FMT", "text (default), json, or delta: the link_measured line an agent's\n"
            "links_file takes (doc/agent.md)", one_of(&format, {"text", "json", "delta"}));
    t.flag("--publish", "send the figure to the broker as cluster A's measurement", set(&publish));
    t.value("--broker", "URL", "with --publish: the broker", store(&url));
    t.value("--token-file", "FILE", "with --publish: cluster A's token, in a file only you can read", store(&token_file));
    t.value("--ca", "FILE", "with --publish: the CA certificate that signs the broker's", store(&ca));
    t.flag("--job-comment", "inside a Slurm job (the agent's probe job): leave the figure in the\n"
           "job's comment, where the agent that started it reads it", set(&job_comment));
    if (!t.parse_or_help(args, 1, std::cout)) return kExitOk;
    const uint32_t job_id = job_comment ? own_job("spiderflow probe measure") : 0;
    if (o.host.empty()) throw InputError("spiderflow probe measure", 0, "--to", "is required (the far side's node)");
    const auto [a, b] = link_ends(link, "spiderflow probe measure");
    if (a == b) throw InputError("spiderflow probe measure", 0, "--link", "names one cluster twice: '" + link + "'");
    if (publish && url.empty()) throw InputError("spiderflow probe measure", 0, "--broker", "is required with --publish");
    if (!publish && (!url.empty() || !token_file.empty()))
        throw InputError("spiderflow probe measure", 0, url.empty() ? "--token-file" : "--broker", "is only used with --publish");

    coflow::ProcessRunner runner;
    probe::ProbeReading reading;
    try {
        reading = probe::measure(runner, o);
    } catch (const InputError& e) {
        return probe_failed(job_id, "measuring " + a + "-" + b + " to " + o.host + ":" + std::to_string(o.port) +
                                        " failed: " + e.what());
    }
    const LinkMeasurement m = probe::to_measurement(reading, a, b, static_cast<SiteTime>(std::time(nullptr)));
    char host[256] = "";
    ::gethostname(host, sizeof host - 1);
    if (format == "delta") {
        std::cout << delta_to_json(LinkMeasured{m}) << "\n";
    } else if (format == "json") {
        std::cout << nlohmann::json{{"a", a}, {"b", b}, {"from", host}, {"to", o.host}, {"gbps", m.bandwidth_Bps * 8 / 1e9},
                                    {"rtt_ms", reading.rtt_s * 1e3}, {"streams", o.streams}, {"seconds", reading.seconds},
                                    {"timestamp", m.timestamp}, {"published", publish}}
                         .dump(2)
                  << "\n";
    } else {
        std::printf("%s-%s (%s -> %s): %.3f Gbps over %d streams, RTT %.2f ms, measured for %.1f s\n", a.c_str(), b.c_str(),
                    host, o.host.c_str(), m.bandwidth_Bps * 8 / 1e9, o.streams, reading.rtt_s * 1e3, reading.seconds);
    }
    if (job_comment && !tell_agent(job_id, probe::kProbeResultPrefix + delta_to_json(LinkMeasured{m}))) return 3;
    if (!publish) return kExitOk;
    try {
        const BrokerClient client(broker_endpoint(url, token_file, ca));
        client.post("/v1/clusters/" + a + "/deltas", broker_api::deltas_to_text({LinkMeasured{m}}));
    } catch (const BrokerError& e) {
        std::cerr << "spiderflow: probe: publishing " << a << "-" << b << ": " << e.what() << "\n";
        return 3;
    }
    std::fprintf(stderr, "spiderflow: probe: published %s-%s to %s\n", a.c_str(), b.c_str(), url.c_str());
    return kExitOk;
}

int run_now(const std::vector<std::string>& args) {
    std::string link, url, token_file, ca;
    double wait_s = 300;
    OptionTable t("spiderflow probe now", kNowUsage, kFooter, 20);
    t.value("--link", "A-B", "the link: A measures, B serves", store(&link));
    t.value("--broker", "URL", "the broker", store(&url));
    t.value("--token-file", "FILE", "the token of cluster A or B, in a file only you can read", store(&token_file));
    t.value("--ca", "FILE", "the CA certificate that signs the broker's", store(&ca));
    t.value("--wait", "S", "follow the probe this long (default 300 s; 0: ask and return)", number(&wait_s, 0, 3600));
    if (!t.parse_or_help(args, 1, std::cout)) return kExitOk;
    const auto [a, b] = link_ends(link, "spiderflow probe now");
    if (a == b) throw InputError("spiderflow probe now", 0, "--link", "names one cluster twice: '" + link + "'");
    if (url.empty()) throw InputError("spiderflow probe now", 0, "--broker", "is required");
    try {
        const BrokerClient client(broker_endpoint(url, token_file, ca));
        const std::string source = url + "/v1/probes";
        broker_api::ProbeStatus p = broker_api::probe_from_text(client.post("/v1/probes", broker_api::probe_request_to_text(link)), source);
        const std::string id = p.id;
        std::printf("probe %s of link %s: %s serves, %s measures\n", id.c_str(), link.c_str(), b.c_str(), a.c_str());
        std::fflush(stdout);
        const std::time_t deadline = std::time(nullptr) + static_cast<std::time_t>(wait_s);
        std::string said = p.state;
        while (said != "done" && said != "failed") {
            if (std::time(nullptr) >= deadline) {
                std::printf("still %s after %.0f s; `spiderflow probe now` again or GET /v1/probes/%s follows it\n", said.c_str(),
                            wait_s, id.c_str());
                return wait_s > 0 ? 3 : kExitOk;
            }
            ::sleep(1);
            p = broker_api::probe_from_text(client.get("/v1/probes/" + id), source + "/" + id);
            const std::string state = p.state;
            if (state == said) continue;
            said = state;
            if (state == "measuring") std::printf("  %s serves on %s; %s measures\n", b.c_str(), (p.host.empty() ? "?" : p.host.c_str()), a.c_str());
            std::fflush(stdout);
        }
        if (said == "failed") {
            std::printf("  failed: %s\n", (p.reason.empty() ? "no reason given" : p.reason.c_str()));
            return 3;
        }
        std::printf("%s: %.3f Gbps, RTT %.2f ms; published as %s's measurement\n", link.c_str(), p.gbps, p.rtt_ms, a.c_str());
        return kExitOk;
    } catch (const BrokerError& e) {
        std::cerr << "spiderflow: probe now: " << e.what() << "\n";
        return 3;
    }
}

int run_probe(const std::vector<std::string>& args) {
    if (args.size() < 2 || args[1] == "--help" || args[1] == "-h" || args[1] == "help") {
        (args.size() < 2 ? std::cerr : std::cout) << kUsage << kFooter;
        return args.size() < 2 ? kExitBadInput : kExitOk;
    }
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (args[1] == "now" || args[1] == "--now") return run_now(rest);
    if (args[1] == "serve") return run_serve(rest);
    if (args[1] == "measure") return run_measure(rest);
    std::cerr << "spiderflow: unknown probe subcommand '" << args[1] << "' (now, serve or measure)\n" << kUsage;
    return kExitBadInput;
}

const Registration reg{"probe", "measure an inter-cluster link (iperf3) and publish it", &run_probe};

}  // namespace
}  // namespace spiderflow::cli
