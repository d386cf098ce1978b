#include "services/broker/brokerd_conf.h"

#include "common/util/errors.h"
#include "common/util/key_value_conf.h"

namespace spiderflow::broker {

BrokerdConf parse_brokerd_conf(const std::string& text, const std::string& source) {
    BrokerdConf c;
    const std::vector<std::string> keys = {"listen",     "port",     "db",       "db_password_file",
                                           "lease_ttl",  "topology", "tokens",   "max_body",
                                           "rate_limit", "threads",  "tls_cert", "tls_key",
                                           "coalloc_lead", "coalloc_give_up", "start_barrier", "cluster_silent_after",
                                           "master_port_base", "master_port_span", "completion_grace",
                                           "requeue_settle", "probe_port", "keep_finished_s", "keep_finished"};
    for (const ConfLine& l : read_conf_lines(text, source, keys)) {
        if (l.key == "listen") c.listen = l.value;
        else if (l.key == "port") c.port = static_cast<int>(conf_integer(l, 1, 65535, source));
        else if (l.key == "db") c.db = l.value;
        else if (l.key == "db_password_file") c.db_password_file = l.value;
        else if (l.key == "lease_ttl") c.lease_ttl_s = static_cast<int>(conf_integer(l, 2, 3600, source));
        else if (l.key == "topology") c.topology = l.value;
        else if (l.key == "tokens") c.tokens = l.value;
        else if (l.key == "max_body") c.max_body_bytes = conf_integer(l, 1024, 1L << 30, source);
        else if (l.key == "rate_limit") c.rate_per_s = static_cast<int>(conf_integer(l, 1, 100000, source));
        else if (l.key == "threads") c.threads = static_cast<int>(conf_integer(l, 1, 256, source));
        else if (l.key == "tls_cert") c.tls_cert = l.value;
        else if (l.key == "tls_key") c.tls_key = l.value;
        else if (l.key == "coalloc_lead") c.coalloc.lead_s = conf_integer(l, 0, 86400, source);
        else if (l.key == "coalloc_give_up") c.coalloc.give_up_after_s = conf_integer(l, 10, 30L * 86400, source);
        else if (l.key == "start_barrier") c.coalloc.barrier_s = conf_integer(l, 5, 86400, source);
        else if (l.key == "cluster_silent_after") c.coalloc.silent_after_s = conf_integer(l, 10, 86400, source);
        else if (l.key == "completion_grace") c.coalloc.completion_grace_s = conf_integer(l, 10, 30L * 86400, source);
        else if (l.key == "probe_port") c.probe_port = static_cast<int>(conf_integer(l, 1024, 65534, source));
        else if (l.key == "requeue_settle") c.coalloc.replan_settle_s = conf_integer(l, 0, 86400, source);
        else if (l.key == "keep_finished_s") c.coalloc.keep_finished_s = conf_integer(l, 0, 365L * 86400, source);
        else if (l.key == "keep_finished") c.coalloc.keep_finished = static_cast<int>(conf_integer(l, 0, 1000000, source));
        else if (l.key == "master_port_base") c.coalloc.master_port_base = static_cast<int>(conf_integer(l, 1024, 65000, source));
        else if (l.key == "master_port_span") c.coalloc.master_port_span = static_cast<int>(conf_integer(l, 1, 30000, source));
    }
    if (c.coalloc.master_port_base + c.coalloc.master_port_span > 65535) {
        throw InputError(source, 0, "master_port_span", "master_port_base + master_port_span exceeds 65535");
    }
    if (c.tls_cert.empty() != c.tls_key.empty()) {
        throw InputError(source, 0, c.tls_cert.empty() ? "tls_cert" : "tls_key", "tls_cert and tls_key go together");
    }
    if (c.db.empty()) throw InputError(source, 0, "db", "needs a database file");
    return c;
}

BrokerdConf load_brokerd_conf(const std::string& path) { return parse_brokerd_conf(read_conf_file(path), path); }

}  // namespace spiderflow::broker
