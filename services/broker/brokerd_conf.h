// /etc/spiderflow/brokerd.conf: where the broker listens, keeps its state and finds the
// federation's topology and the hashed tokens. Strict like spiderflow.conf (common/util/
// key_value_conf.h); every key is documented in contrib/federation/brokerd.conf.
#pragma once

#include <string>

#include "services/coalloc/coallocator.h"

namespace spiderflow::broker {

struct BrokerdConf {
    std::string listen = "127.0.0.1";
    int port = 8760;
    std::string db = "/var/lib/spiderflow/broker.db";        // a file (SQLite) or mysql://...
    std::string db_password_file;                             // MariaDB's password, root-only
    int lease_ttl_s = 10;                                     // MariaDB: a silent active broker's reign
    std::string topology = "/etc/spiderflow/federation.json";  // the federation's clusters and links
    std::string tokens = "/etc/spiderflow/broker-tokens";     // hashed tokens, root-only
    long max_body_bytes = 16L << 20;                          // larger requests get 413
    int rate_per_s = 50;                                      // per token; over it 429
    int threads = 8;
    std::string tls_cert;                                     // both set: HTTPS only
    std::string tls_key;
    coalloc::Policy coalloc;                                  // cross-site jobs: lead, give-up, barrier, silence
    int probe_port = 5301;                                    // link probes: the serve job's iperf3 port (and the next)
};

// Throws InputError(source, line, key, ...).
BrokerdConf parse_brokerd_conf(const std::string& text, const std::string& source);
BrokerdConf load_brokerd_conf(const std::string& path);

}  // namespace spiderflow::broker
