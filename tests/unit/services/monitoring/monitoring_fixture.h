// What the monitoring tests export: a broker and an agent over aws-4 with every kind of figure
// present (a cluster published, a link measured, a cross-site job, parts in each state).
#pragma once

#include <cstdlib>
#include <memory>
#include <string>

#include "common/site/site_json.h"
#include "common/topology/reader.h"
#include "services/agent/agent_metrics.h"
#include "services/broker/federation_figures.h"
#include "services/broker/metrics.h"
#include "services/coalloc/coallocator.h"

namespace spiderflow::test {

inline std::string srcdir() {
    const char* src = std::getenv("SF_SRCDIR");
    return src ? src : ".";
}

inline std::shared_ptr<const Topology> aws4() {
    return std::make_shared<const Topology>(read_topology(srcdir() + "/contrib/topologies/aws-4.json"));
}

// oregon's agent measured oregon-ohio (ohio named first, as a probe from ohio would) at t=1000.
inline LinkMeasurement measured_oregon_ohio() { return {"ohio", "oregon", 1.4e9 / 8, 0.0245, 1000, "spiderflow-probe"}; }

inline std::string broker_text(int64_t now = 1060) {
    const auto t = aws4();
    broker::FederationState state(t);
    SiteState part(t);
    part.allocate("train", {{{"oregon", "or-gpu001"}, 8, 0}}, 0);
    part.measure_link(measured_oregon_ohio());
    state.replace_part("oregon", site_state_to_json(part), 1000);
    coalloc::Coallocator jobs;
    coalloc::XJob job;
    job.id = "oregon:7";
    job.user = "alice";
    job.time_limit_s = 3600;
    job.script = "#!/bin/sh\n";
    job.parts = {coalloc::Part{{"oregon", 1, 8, 8}}, coalloc::Part{{"ohio", 1, 8, 8}}};
    jobs.submit(job, 1000);
    broker::Metrics m;
    m.observe("/v1/federation", 200, 0.002);
    return m.render(broker::federation_figures(state, jobs, now), now);
}

inline std::string agent_text() {
    agent::AgentFigures f;
    f.cluster = "oregon";
    f.now = 1060;
    f.publish.observe_ok(0.03, 1050);
    f.publish.failures = 2;
    f.publish.federation_read_at = 1055;
    f.parts.by_state = {{"pending", 1}, {"running", 2}, {"completing", 0}, {"ended", 1}};
    f.parts.requeued_by_slurm = 1;
    f.links = {measured_oregon_ohio()};
    return agent::agent_metrics_text(f, *aws4());
}

}  // namespace spiderflow::test
