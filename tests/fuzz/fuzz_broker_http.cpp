// Fuzz target: the broker's HTTP routes and the bodies they read, through the real BrokerService
// (federation/brokerd) behind cpp-httplib's own request parser and router, in process. Each input
// is a short session of requests against a fresh broker (a SQLite store in a temporary
// directory, the aws-4 topology, one token per cluster and a reader's), so a finding replays
// from its one input. Checked after every request: the status is one the API documents, every
// answer but a 304 and the two text routes is a JSON object (errors {"error": "..."}), a refused
// request or a read leaves the epoch where it was, and a 2xx answer is read back by the reader
// the agent and the `spiderflow` command use (what the broker writes, they read). After the
// session: the deltas the broker serves since its start, applied to its first view, give its
// last view, as the agent keeps its cache.
//
// Why process_request: cpp-httplib keeps Server::routing private but process_request protected
// (the entry its own fuzzer, test/fuzzing/server_fuzzer.cc, drives), so a subclass can hand it a
// request from memory: the same parser, regex routes, matches and error handling as brokerd,
// without a socket, a listener thread or a port. A loopback server would cost a connection per
// request and spread one input over threads.
//
// Input: requests separated by lines "%%". Each request's first line is
//   METHOD TARGET CALLER [etag]
// CALLER is a cluster of aws-4 (token tok-CALLER), "tools" (a reader), "-" (no token) or any
// other word (a token the broker does not hold); "etag" sends If-None-Match with the last ETag
// answered. TARGET is percent-encoded byte by byte where HTTP needs it, so any byte reaches the
// router. The rest of the request, to the next "%%", is the body. SF_FUZZ_TRACE=1 prints each
// request's status and the start of its answer.
#include <httplib.h>

#include <unistd.h>

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/site/site_json.h"
#include "common/topology/reader.h"
#include "common/topology/spiderflow_reader.h"
#include "common/util/errors.h"
#include "federation/brokerd/broker_api.h"
#include "services/broker/brokerd_conf.h"
#include "services/broker/broker_store.h"
#include "services/broker_client/broker_api_types.h"

namespace {

namespace fs = std::filesystem;
using spiderflow::broker::BrokerService;

constexpr size_t kMaxRequests = 8;
const char* const kClusters[] = {"oregon", "virginia", "ohio", "london"};

[[noreturn]] void fail(const std::string& what, const std::string& detail) {
    std::fprintf(stderr, "spiderflow: fuzz_broker_http: %s\n%s\n", what.c_str(), detail.c_str());
    std::abort();
}

// One request from memory, its answer to memory: what process_request reads and writes.
class MemoryStream : public httplib::Stream {
public:
    explicit MemoryStream(std::string in) : in_(std::move(in)) {}
    bool is_readable() const override { return true; }
    bool is_writable() const override { return true; }
    ssize_t read(char* ptr, size_t size) override {
        const size_t n = std::min(size, in_.size() - pos_);
        in_.copy(ptr, n, pos_);
        pos_ += n;
        return static_cast<ssize_t>(n);
    }
    ssize_t write(const char*, size_t size) override { return static_cast<ssize_t>(size); }
    void get_remote_ip_and_port(std::string& ip, int& port) const override { ip = "127.0.0.1", port = 40000; }
    void get_local_ip_and_port(std::string& ip, int& port) const override { ip = "127.0.0.1", port = 5300; }
    socket_t socket() const override { return 0; }

private:
    std::string in_;
    size_t pos_ = 0;
};

struct Answer {
    int status = 0;
    std::string method, path, body, content_type, etag;
};

class InProcessServer : public httplib::Server {
public:
    InProcessServer() {
        // What brokerd's main sets that changes an answer (the body limit; timeouts need a socket).
        set_payload_max_length(static_cast<size_t>(spiderflow::broker::BrokerdConf{}.max_body_bytes));
        set_post_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
            last_.status = res.status;
            last_.method = req.method;
            last_.path = req.path;
            last_.body = res.body;
            last_.content_type = res.get_header_value("Content-Type");
            last_.etag = res.get_header_value("ETag");
        });
    }
    Answer send(const std::string& raw) {
        last_ = Answer{};
        MemoryStream stream(raw);
        bool closed = false;
        process_request(stream, true, closed, nullptr);
        return last_;
    }

private:
    Answer last_;
};

const std::shared_ptr<const spiderflow::Topology>& topology() {
    static const auto t = [] {
        const char* src = std::getenv("SF_SRCDIR");
        const fs::path dir = src && *src ? fs::path(src) : fs::path(SF_PKGDATADIR);
        return std::make_shared<const spiderflow::Topology>(
            spiderflow::read_topology((dir / "contrib" / "topologies" / "aws-4.json").string(), ""));
    }();
    return t;
}

std::string tokens_text() {
    std::string text;
    for (const char* c : kClusters) text += std::string("cluster ") + c + " " + spiderflow::broker::token_hash(std::string("tok-") + c) + "\n";
    return text + "reader tools " + spiderflow::broker::token_hash("tok-tools") + "\n";
}

// A fresh directory per input, on tmpfs where there is one: SQLite's fsync costs nothing there.
fs::path scratch_dir() {
    static const fs::path base = [] {
        std::error_code ec;
        const char* const candidates[] = {"/dev/shm", std::getenv("TMPDIR"), "/tmp"};
        for (const char* d : candidates) {
            if (d != nullptr && *d != '\0' && ::access(d, W_OK) == 0) return fs::path(d);
        }
        return fs::temp_directory_path(ec);
    }();
    std::string tmpl = (base / "sf-fuzz-broker.XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) fail("cannot make a temporary directory under " + base.string(), "");
    return tmpl;
}

std::string encode_target(const std::string& t) {
    static const char hex[] = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : t) {
        if (std::isalnum(c) || std::string_view("-._~/?=&:,").find(static_cast<char>(c)) != std::string_view::npos) {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out.empty() || out[0] != '/' ? "/" + out : out;
}

std::string raw_request(const std::string& method, const std::string& target, const std::string& caller,
                        const std::string& if_none_match, const std::string& body) {
    std::string r = method + " " + encode_target(target) + " HTTP/1.1\r\nHost: broker\r\n";
    if (caller != "-") r += "Authorization: Bearer tok-" + caller + "\r\n";
    if (!if_none_match.empty()) r += "If-None-Match: " + if_none_match + "\r\n";
    if (!body.empty() || method == "PUT" || method == "POST") r += "Content-Length: " + std::to_string(body.size()) + "\r\n";
    return r + "Connection: close\r\n\r\n" + body;
}

// The reader of a 2xx answer (its letter in fuzz_broker_answers.cpp; 0: none) and of the request
// body that route read, as the agent, the `spiderflow` command and the broker read them.
struct Readers {
    char answer = 0, request = 0;
};
Readers readers_of(const std::string& method, const std::string& p) {
    static const std::regex cluster_route(R"(/v1/clusters/[^/]+/(inventory|deltas|orders|reports|probes))");
    static const std::regex xjob_route(R"(/v1/xjobs/[^/]+)"), cancel_route(R"(/v1/xjobs/[^/]+/cancel)");
    static const std::regex probe_route(R"(/v1/probes/[^/]+)");
    const bool get = method == "GET";
    std::smatch m;
    if (method == "HEAD") return {};  // no body reaches a reader
    if (p == "/v1/federation") return {'f', 0};
    if (p == "/v1/federation/deltas") return {'d', 0};
    if (p == "/v1/clusters") return {'c', 0};
    if (p == "/v1/xjobs") return get ? Readers{'X', 0} : Readers{'s', 0};
    if (std::regex_match(p, cancel_route)) return {'s', 'C'};
    if (std::regex_match(p, xjob_route)) return {'x', 0};
    if (p == "/v1/probes") return get ? Readers{'q', 0} : Readers{'P', 'l'};
    if (std::regex_match(p, probe_route)) return {'P', 0};
    if (!std::regex_match(p, m, cluster_route)) return {};
    const std::string what = m[1];
    if (what == "inventory") return {'p', 0};
    if (what == "deltas") return {'p', 'D'};
    if (what == "orders") return {'o', 0};
    if (what == "reports") return {'t', 'r'};
    return get ? Readers{'O', 0} : Readers{'t', 'R'};
}

void read_as(char reader, const std::string& body, const std::string& src) {
    using namespace spiderflow::broker_api;
    switch (reader) {
    case 'f': {
        const Federation f = federation_from_text(body, src);
        auto t = std::make_shared<const spiderflow::Topology>(spiderflow::parse_spiderflow_topology(f.topology.dump(), src));
        (void)spiderflow::site_state_from_json(f.state.dump(), topology(), src);
        (void)spiderflow::site_state_from_json(f.state.dump(), t, src);
        break;
    }
    case 'd': (void)federation_deltas_from_text(body, src); break;
    case 'c': (void)clusters_from_text(body, src); break;
    case 'X': (void)xjobs_from_text(body, src); break;
    case 's': (void)xjob_state_from_text(body, src); break;
    case 'x': (void)xjob_from_text(body, src); break;
    case 'q': (void)probes_from_text(body, src); break;
    case 'P': (void)probe_from_text(body, src); break;
    case 'p': (void)published_from_text(body, src); break;
    case 'o': (void)orders_from_text(body, src); break;
    case 't': (void)tally_from_text(body, src); break;
    case 'O': (void)probe_orders_from_text(body, src); break;
    }
}

// SF_FUZZ_ANSWERS=DIR keeps every answer a reader read, and every request body a route took, as
// a seed of fuzz_broker_answers (its reader's letter, then the body): seeds from the real broker.
void keep_seed(char reader, const std::string& body) {
    static const char* dir = std::getenv("SF_FUZZ_ANSWERS");
    if (dir == nullptr || reader == 0) return;
    const std::string name = std::string(dir) + "/" + reader + "-" + std::to_string(std::hash<std::string>{}(body) % 1000000);
    if (FILE* f = std::fopen(name.c_str(), "wb")) {
        std::fputc(reader, f);
        std::fwrite(body.data(), 1, body.size(), f);
        std::fclose(f);
    }
}

// What every answer must be, whatever was asked.
void check_answer(const Answer& a, const std::string& raw, const std::string& body, uint64_t epoch_before, uint64_t epoch_after) {
    static const std::set<int> documented = {200, 201, 304, 400, 401, 403, 404, 409, 410, 413, 414};
    const std::string said = "request:\n" + raw + "\nanswer " + std::to_string(a.status) + ":\n" + a.body;
    if (documented.count(a.status) == 0) fail("an answer with a status the API does not have", said);
    const bool text_route = a.path == "/healthz" || a.path == "/metrics";
    const bool ok = a.status >= 200 && a.status < 300;
    if (a.status == 304) {
        if (!a.body.empty()) fail("a 304 with a body", said);
    } else if (!(text_route && ok) && a.method != "HEAD") {
        const nlohmann::json j = nlohmann::json::parse(a.body, nullptr, false);
        if (j.is_discarded() || !j.is_object()) fail("an answer that is not a JSON object", said);
        if (!ok && (!j.contains("error") || !j["error"].is_string())) fail("a refusal without {\"error\": \"...\"}", said);
    }
    if ((!ok || a.method == "GET" || a.method == "HEAD") && epoch_after != epoch_before) {
        fail("the epoch moved from " + std::to_string(epoch_before) + " to " + std::to_string(epoch_after) +
                 " on a read or a refused request",
             said);
    }
    if (ok && a.method != "HEAD" && !text_route) {
        const Readers readers = readers_of(a.method, a.path);
        try {
            read_as(readers.answer, a.body, "answer to " + a.method + " " + a.path);
        } catch (const spiderflow::InputError& e) {
            fail(std::string("the broker wrote an answer its readers refuse: ") + e.what(), said);
        }
        keep_seed(readers.answer, a.body);
        keep_seed(readers.request, body);
    }
}

std::string get(InProcessServer& server, const std::string& target) {
    const std::string raw = raw_request("GET", target, "tools", "", "");
    const Answer a = server.send(raw);
    return a.status == 200 ? a.body : std::string();
}

// The agent's cache: the first view with every delta since applied equals the last view.
void check_deltas(InProcessServer& server, const std::string& first_view) {
    using namespace spiderflow::broker_api;
    const Federation first = federation_from_text(first_view, "first view");
    const std::string last_text = get(server, "/v1/federation");
    const Federation last = federation_from_text(last_text, "last view");
    if (last.epoch == first.epoch) return;
    const std::string deltas_text = get(server, "/v1/federation/deltas?since=" + std::to_string(first.epoch));
    if (deltas_text.empty()) return;  // 410: the broker no longer reaches back that far
    const FederationDeltas d = federation_deltas_from_text(deltas_text, "deltas");
    spiderflow::SiteState replayed = spiderflow::site_state_from_json(first.state.dump(), topology(), "first view");
    try {
        for (const spiderflow::SiteDelta& delta : d.deltas) replayed.apply(delta);
    } catch (const spiderflow::InputError& e) {
        fail(std::string("the broker's deltas do not apply to its own first view: ") + e.what(), deltas_text);
    }
    replayed.restore_epoch(d.epoch);
    const std::string want = spiderflow::site_state_to_json(
        spiderflow::site_state_from_json(last.state.dump(), topology(), "last view"), 2);
    const std::string got = spiderflow::site_state_to_json(replayed, 2);
    if (got != want) fail("the first view with the deltas since is not the last view", "deltas:\n" + deltas_text + "\nreplayed:\n" + got + "\nlast view:\n" + want);
}

struct Request {
    std::string method, target, caller, body;
    bool etag = false;
};

std::vector<Request> split(const std::string& input) {
    std::vector<Request> out;
    size_t pos = 0;
    while (pos <= input.size() && out.size() < kMaxRequests) {
        size_t end = input.find("\n%%\n", pos);
        const std::string chunk = input.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
        pos = end == std::string::npos ? input.size() + 1 : end + 4;
        const size_t nl = chunk.find('\n');
        std::istringstream head(chunk.substr(0, nl));
        Request r;
        std::string word;
        head >> r.method >> r.target >> r.caller >> word;
        if (r.method.empty()) continue;
        if (r.caller.empty()) r.caller = "-";
        r.etag = word == "etag";
        r.body = nl == std::string::npos ? "" : chunk.substr(nl + 1);
        out.push_back(std::move(r));
    }
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::vector<Request> requests = split(std::string(reinterpret_cast<const char*>(data), size));
    if (requests.empty()) return 0;
    static const bool trace = std::getenv("SF_FUZZ_TRACE") != nullptr;  // each request's answer, for a person reading a finding
    const fs::path dir = scratch_dir();
    {
        auto store = spiderflow::broker::open_store((dir / "broker.db").string(), {});
        BrokerService service(topology(), std::move(store),
                              spiderflow::broker::TokenTable::parse(tokens_text(), "fuzz tokens"), 1e6);
        InProcessServer server;
        service.install(server);
        const std::string first_view = get(server, "/v1/federation");
        if (first_view.empty()) fail("no first view", "");
        std::string etag;
        for (const Request& r : requests) {
            const std::string raw = raw_request(r.method, r.target, r.caller, r.etag ? etag : "", r.body);
            const uint64_t before = service.epoch();
            const Answer a = server.send(raw);
            if (trace) std::fprintf(stderr, "spiderflow: fuzz_broker_http: %s %s %s -> %d %.200s\n", r.method.c_str(), r.target.c_str(), r.caller.c_str(), a.status, a.body.c_str());
            check_answer(a, raw, r.body, before, service.epoch());
            if (!a.etag.empty()) etag = a.etag;
        }
        check_deltas(server, first_view);
    }
    std::error_code ec;
    fs::remove_all(dir, ec);
    return 0;
}
