#include "services/agent/probe_runner.h"

#include <exception>
#include <variant>

#include "common/site/site_delta.h"
#include "common/util/errors.h"
#include "services/broker_client/broker_api_types.h"

namespace spiderflow::agent {
namespace {

const ProbeJob* find_job(const std::vector<ProbeJob>& jobs, const std::string& name) {
    const ProbeJob* found = nullptr;
    for (const ProbeJob& j : jobs) {
        if (j.name == name && (found == nullptr || j.job_id > found->job_id)) found = &j;  // the newest
    }
    return found;
}

// What the job said of its failure in its comment (`spiderflow probe serve|measure --job-comment`),
// after Slurm's reason: "FAILED: cannot listen on port 5301: ...", or the reason alone.
std::string why_ended(const ProbeJob& job) {
    const std::string prefix = probe::kProbeFailedPrefix;
    if (job.comment.rfind(prefix, 0) != 0) return job.reason;
    return job.reason + ": " + job.comment.substr(prefix.size());
}

}  // namespace

ProbeRunner::ProbeRunner(std::string cluster, BrokerClient client, ProbeHands& hands, ProbeSettings settings, Publish publish,
                         Log log)
    : cluster_(std::move(cluster)), client_(std::move(client)), hands_(hands), settings_(std::move(settings)),
      publish_(std::move(publish)), log_(std::move(log)) {}

std::vector<std::string> ProbeRunner::due(int64_t now) {
    std::vector<std::string> out;
    if (settings_.interval_s <= 0) return out;
    for (const std::string& link : settings_.links) {
        auto it = asked_.find(link);
        if (it == asked_.end() || now - it->second >= settings_.interval_s) out.push_back(link);
    }
    return out;
}

probe::ProbeReport ProbeRunner::serve(const probe::ProbeOrder& o, const std::vector<ProbeJob>& jobs, bool* report) {
    probe::ProbeReport r;
    r.probe = o.probe;
    const std::string name = probe::probe_job_name(o.probe, "serve");
    const ProbeJob* job = find_job(jobs, name);
    if (job == nullptr) {
        const uint32_t id = hands_.submit_probe(name, "#!/bin/sh\nexec " + settings_.command + " probe serve --port " +
                                                          std::to_string(o.port) + " --job-comment\n");
        log_("probe " + o.probe + " of link " + o.link + ": serve job " + std::to_string(id) + " submitted");
    } else if (job->state == ProbeJob::State::Running && !job->node.empty() && job->comment == probe::kProbeServingComment) {
        r.kind = probe::ProbeReport::Kind::Serving;
        r.host = hands_.address_of(job->node);
        *report = true;
    } else if (job->state == ProbeJob::State::Ended) {
        r.kind = probe::ProbeReport::Kind::Failed;
        r.reason = "the serve job " + std::to_string(job->job_id) + " ended before it served (" + why_ended(*job) + ")";
        *report = true;
    }
    return r;
}

probe::ProbeReport ProbeRunner::measure(const probe::ProbeOrder& o, const std::vector<ProbeJob>& jobs, bool* report) {
    probe::ProbeReport r;
    r.probe = o.probe;
    const std::string name = probe::probe_job_name(o.probe, "measure");
    const ProbeJob* job = find_job(jobs, name);
    if (job == nullptr) {
        const uint32_t id = hands_.submit_probe(name, "#!/bin/sh\nexec " + settings_.command + " probe measure --to " + o.host +
                                                          " --port " + std::to_string(o.port) + " --link " + o.link +
                                                          " --job-comment\n");
        log_("probe " + o.probe + " of link " + o.link + ": measure job " + std::to_string(id) + " submitted to " + o.host);
        return r;
    }
    if (job->state != ProbeJob::State::Ended) return r;
    *report = true;
    const std::string prefix = probe::kProbeResultPrefix;
    if (job->comment.rfind(prefix, 0) != 0) {
        r.kind = probe::ProbeReport::Kind::Failed;
        r.reason = "the measure job " + std::to_string(job->job_id) + " ended without a figure (" + why_ended(*job) +
                   "; its output is " + probe::probe_job_output(name, std::to_string(job->job_id)) + " on " + (job->node.empty() ? "its node" : job->node) + ")";
        return r;
    }
    try {
        const SiteDelta d = delta_from_json(job->comment.substr(prefix.size()), "the measure job's figure");
        const auto* m = std::get_if<LinkMeasured>(&d);
        if (m == nullptr || m->measurement.a + "-" + m->measurement.b != o.link) {
            throw InputError("the measure job's figure", 0, "delta", "is not a measurement of link " + o.link);
        }
        publish_(m->measurement);
        r.kind = probe::ProbeReport::Kind::Measured;
        r.gbps = m->measurement.bandwidth_Bps * 8 / 1e9;
        r.rtt_ms = m->measurement.latency_s * 2 * 1e3;
        log_("probe " + o.probe + " of link " + o.link + ": " + std::to_string(r.gbps) + " Gbps, published");
    } catch (const std::exception& e) {
        r.kind = probe::ProbeReport::Kind::Failed;
        r.reason = e.what();
    }
    return r;
}

std::vector<probe::ProbeReport> ProbeRunner::round(const std::vector<probe::ProbeOrder>& orders) {
    std::vector<probe::ProbeReport> out;
    if (orders.empty()) return out;
    const std::vector<ProbeJob> jobs = hands_.probe_jobs();
    for (const probe::ProbeOrder& o : orders) {
        bool report = false;
        probe::ProbeReport r;
        switch (o.kind) {
        case probe::ProbeOrder::Kind::Serve:
            r = serve(o, jobs, &report);
            break;
        case probe::ProbeOrder::Kind::Measure:
            r = measure(o, jobs, &report);
            break;
        case probe::ProbeOrder::Kind::End: {
            const ProbeJob* job = find_job(jobs, probe::probe_job_name(o.probe, "serve"));
            if (job != nullptr && job->state != ProbeJob::State::Ended) hands_.cancel_probe(job->job_id);
            r.probe = o.probe;
            r.kind = probe::ProbeReport::Kind::Ended;
            report = true;
            break;
        }
        }
        if (report) out.push_back(r);
    }
    return out;
}

void ProbeRunner::cycle(int64_t now) {
    try {
        for (const std::string& link : due(now)) {
            client_.post("/v1/probes", broker_api::probe_request_to_text(link));
            asked_[link] = now;
            log_("asked the broker for a probe of link " + link + " (probe_interval)");
        }
        const std::vector<probe::ProbeOrder> orders =
            broker_api::probe_orders_from_text(client_.get("/v1/clusters/" + cluster_ + "/probes"), "probe orders");
        const std::vector<probe::ProbeReport> reports = round(orders);
        if (reports.empty()) return;
        client_.post("/v1/clusters/" + cluster_ + "/probes", broker_api::probe_reports_to_text(reports));
    } catch (const std::exception& e) {
        log_(std::string("link probes: ") + e.what());
    }
}

}  // namespace spiderflow::agent
