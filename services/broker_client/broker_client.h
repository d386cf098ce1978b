// The broker's client, on libcurl: what the agent, the plugins' helpers and the `spiderflow`
// command use to reach spiderflow-brokerd (doc/broker-api.md). Bounded: connect and total
// timeouts on every call, a few retries with jittered exponential backoff on transport errors,
// 429 and 5xx, never on a 4xx that retrying cannot fix. Never used inside slurmctld's submit path.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace spiderflow {

struct BrokerEndpoint {
    // https://broker.example.org:8760 (no trailing path); several, comma-separated, for brokers
    // sharing one MariaDB: a call goes to the one that answered last, and moves on to the next
    // when a broker is unreachable or answers 503 (a standby).
    std::string url;
    std::string token;             // bearer token; empty for /healthz only
    std::string ca_file;           // PEM bundle that signs the broker's certificate; empty = system's
    double connect_timeout_s = 3;
    double total_timeout_s = 15;
    int attempts = 3;              // tries per call, the first included
};

// A call that did not succeed: `status` is the HTTP status (0 when no answer came), `what()`
// names the URL and the broker's own error text when it gave one.
class BrokerError : public std::runtime_error {
public:
    BrokerError(int status, const std::string& what) : std::runtime_error(what), status_(status) {}
    int status() const { return status_; }

private:
    int status_;
};

// The token in a file that only its owner may read (mode 0600 or 0400): a token readable by
// others is refused rather than used. Surrounding whitespace is dropped. Throws BrokerError(0).
std::string read_token_file(const std::string& path);

class BrokerClient {
public:
    explicit BrokerClient(BrokerEndpoint endpoint);

    // The answer's body on a 2xx; BrokerError otherwise.
    std::string get(const std::string& path) const;
    std::string put(const std::string& path, const std::string& body) const;
    std::string post(const std::string& path, const std::string& body) const;
    // A conditional GET: with `*etag` set, nullopt when the broker's answer is unchanged (304);
    // otherwise the body, with `*etag` now the answer's.
    std::optional<std::string> get_if_changed(const std::string& path, std::string* etag) const;

    const BrokerEndpoint& endpoint() const { return endpoint_; }

private:
    // `etag`: when set, sent as If-None-Match, and the answer's ETag written back (a 304 is then
    // an answer, with an empty body).
    std::string call(const char* method, const std::string& path, const std::string* body,
                     std::string* etag = nullptr) const;
    // One request to one broker: the status (0 when no answer came), the body in `answer`.
    int once(const std::string& url, const char* method, const std::string* body, std::string* answer,
             std::string* transport_error, std::string* etag) const;
    BrokerEndpoint endpoint_;
    std::vector<std::string> urls_;
    // The broker that answered last; shared by copies of this client.
    std::shared_ptr<std::atomic<size_t>> preferred_ = std::make_shared<std::atomic<size_t>>(0);
};

}  // namespace spiderflow
