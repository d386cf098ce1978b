// spiderflow-brokerd: the federation broker. Reads its config, the federation topology and the
// hashed tokens, restores the state from its store, and serves the HTTP API until SIGTERM/SIGINT.
#include <httplib.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <string>
#include <thread>
#include <unistd.h>

#include <climits>
#include <cstring>
#include <cerrno>

#include "common/topology/reader.h"
#include "common/util/cli_options.h"
#include "federation/brokerd/broker_api.h"
#include "services/broker/brokerd_conf.h"

namespace {

constexpr const char* kHelp =
    "usage: spiderflow-brokerd [--config FILE] [--db FILE|mysql://USER@HOST/DB]\n"
    "       spiderflow-brokerd --hash-token < TOKEN\n\n"
    "The SpiderFlow federation broker: every cluster's agent publishes its site state here and\n"
    "every cluster plans against the merged federation (doc/broker-api.md).\n\n"
    "  --config FILE   broker config (default /etc/spiderflow/brokerd.conf; every key is\n"
    "                  documented in contrib/federation/brokerd.conf)\n"
    "  --db LOCATION   state database, overriding the config's db: a file (SQLite, WAL\n"
    "                  mode) or mysql://USER@HOST[:PORT]/DATABASE[?socket=PATH] (MariaDB; the\n"
    "                  password in db_password_file). Brokers sharing one MariaDB elect one\n"
    "                  active broker by a lease; the others serve reads and take over\n"
    "  --hash-token    read a token on standard input and print its SHA-256, the form the\n"
    "                  tokens file keeps ('cluster NAME HASH' or 'reader NAME HASH')\n"
    "  --help          this text\n\n"
    "One broker per SQLite file: a second one on the same file, or on the same address, exits 1\n"
    "naming the first (several brokers share only a MariaDB database).\n\n"
    "Exit status: 0 after a clean stop (SIGTERM, SIGINT), 2 on a bad config, topology, token\n"
    "file or database, 1 when the database is another broker's or the address cannot be bound.\n";

// How this broker names itself in the lease row, so a standby can say who is active.
std::string lease_holder(const spiderflow::broker::BrokerdConf& conf) {
    char host[HOST_NAME_MAX + 1] = {};
    ::gethostname(host, sizeof host - 1);
    return std::string(host) + ":" + std::to_string(conf.port) + " pid " + std::to_string(::getpid());
}

// httplib's default socket options set SO_REUSEPORT, under which every broker started on one
// address listens on it and the kernel spreads requests between them (three brokers answered on
// one port, each with its own state). SO_REUSEADDR alone lets a restart bind past TIME_WAIT but
// refuses a second listener.
void plain_bind_options(socket_t sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
}

std::atomic<bool> g_stop{false};
void on_signal(int) { g_stop = true; }

}  // namespace

int main(int argc, char** argv) {
    using namespace spiderflow;
    using namespace spiderflow::broker;
    std::string config_path = "/etc/spiderflow/brokerd.conf", db_override;
    bool hash_token = false;
    cli::OptionTable options("spiderflow-brokerd", kHelp);  // kHelp lists the options itself
    options.value("--config", "FILE", "", cli::store(&config_path));
    options.value("--db", "LOCATION", "", cli::store(&db_override));
    options.flag("--hash-token", "", cli::set(&hash_token));
    if (const auto status = cli::parse_main(options, argc, argv)) return *status;
    if (hash_token) {
        std::string token;
        std::getline(std::cin, token);
        if (token.empty()) {
            std::cerr << "spiderflow: --hash-token: no token on standard input\n";
            return 2;
        }
        std::cout << token_hash(token) << "\n";
        return 0;
    }
    std::unique_ptr<BrokerService> service;
    BrokerdConf conf;
    try {
        conf = load_brokerd_conf(config_path);
        if (!db_override.empty()) conf.db = db_override;
        auto topology = std::make_shared<const Topology>(read_topology(conf.topology, ""));
        TokenTable tokens = TokenTable::load(conf.tokens);
        const StoreOptions options{conf.db_password_file, lease_holder(conf)};
        std::unique_ptr<BrokerStore> store = open_store(conf.db, options);
        const bool shared = store->shared();
        const std::string where = store->describe();
        service = std::make_unique<BrokerService>(topology, std::move(store), std::move(tokens), conf.rate_per_s,
                                                  conf.coalloc, conf.probe_port);
        std::cerr << "spiderflow: brokerd: " << topology->clusters.size() << " clusters in " << conf.topology
                  << ", state in " << where << " (epoch " << service->epoch() << ")\n";
        if (shared) service->keep_lease(open_store(conf.db, options), lease_holder(conf), conf.lease_ttl_s);
    } catch (const StoreInUse& e) {
        std::cerr << "spiderflow: brokerd: " << e.what() << "\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "spiderflow: brokerd: " << e.what() << "\n";
        return 2;
    }
    std::unique_ptr<httplib::Server> server;
    if (!conf.tls_cert.empty()) server = std::make_unique<httplib::SSLServer>(conf.tls_cert.c_str(), conf.tls_key.c_str());
    else server = std::make_unique<httplib::Server>();
    if (!server->is_valid()) {
        std::cerr << "spiderflow: brokerd: cannot use TLS certificate " << conf.tls_cert << " / key " << conf.tls_key << "\n";
        return 2;
    }
    server->set_socket_options(plain_bind_options);
    server->set_payload_max_length(static_cast<size_t>(conf.max_body_bytes));
    server->new_task_queue = [threads = conf.threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
    server->set_read_timeout(10, 0);
    server->set_write_timeout(10, 0);
    service->set_tls(!conf.tls_cert.empty());
    service->install(*server);
    if (!server->bind_to_port(conf.listen.c_str(), conf.port)) {
        std::cerr << "spiderflow: brokerd: cannot listen on " << conf.listen << ":" << conf.port << ": "
                  << std::strerror(errno) << " (another broker or program holds the address?)\n";
        return 1;
    }
    std::signal(SIGTERM, on_signal);
    std::signal(SIGINT, on_signal);
    std::signal(SIGPIPE, SIG_IGN);
    // httplib's stop() is not async-signal-safe: a watcher thread calls it.
    std::thread watcher([&] {
        while (!g_stop) ::usleep(100000);
        server->stop();
    });
    std::cerr << "spiderflow: brokerd listening on " << (conf.tls_cert.empty() ? "http" : "https") << "://"
              << conf.listen << ":" << conf.port << "\n";
    server->listen_after_bind();
    g_stop = true;
    watcher.join();
    service->release_lease();  // a standby takes over now, not when the lease runs out
    std::cerr << "spiderflow: brokerd stopped\n";
    return 0;
}
