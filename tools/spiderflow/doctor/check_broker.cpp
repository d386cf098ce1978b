// The broker answers GET /healthz from this host (no token needed), within a short timeout.
#include "tools/spiderflow/doctor/checks.h"

namespace spiderflow::doctor {

void check_broker(const SiteFacts& site, CheckResult& r) {
    const BrokerFacts& b = site.broker;
    if (b.url.empty()) return r.skip(site.no_broker_reason());
    if (!b.asked) return r.skip("--offline");
    if (!b.health_error.empty()) {
        r.error(b.url, "does not answer: " + b.health_error,
                "start spiderflow-brokerd there, or fix broker = in " + site.agent.path +
                    " (a firewall between this host and the broker, or TLS: ca_file = the CA that signs its certificate)");
        return;
    }
    r.pass(b.url + "/healthz: " + b.health);
}

}  // namespace spiderflow::doctor
