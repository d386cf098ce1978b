// The agent's token: the broker client refuses a token file others can read (the token must be
// taken as leaked) and the agent then publishes nothing. The same check as the client's
// (read_token_file), run by gather_site, so the two cannot disagree.
#include <sys/stat.h>

#include "tools/spiderflow/doctor/checks.h"

namespace spiderflow::doctor {

void check_token(const SiteFacts& site, CheckResult& r) {
    const BrokerFacts& b = site.broker;
    if (b.token_file.empty()) return r.skip(site.no_broker_reason());
    if (!b.token_error.empty()) {
        struct stat st {};
        const bool exposed = ::stat(b.token_file.c_str(), &st) == 0 && (st.st_mode & 077) != 0;
        r.error(b.token_file, b.token_error,
                exposed ? "chmod 600 " + b.token_file + " (owner root); a token others could read is as good as leaked: make a "
                          "new one (spiderflow-brokerd --hash-token) and replace this cluster's line in the broker's tokens file"
                        : "write this cluster's token into " + b.token_file + " (mode 600, owner root), or fix token_file = in " +
                              site.agent.path);
        return;
    }
    r.pass(b.token_file + " is readable by its owner alone");
}

}  // namespace spiderflow::doctor
