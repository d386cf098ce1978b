#include "services/probe/link_probe.h"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <cmath>
#include <limits>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "common/util/errors.h"
#include "common/util/human_format.h"

namespace spiderflow::probe {
namespace {

const char* const kSource = "iperf3";

}  // namespace

coflow::Argv client_argv(const ProbeOptions& o) {
    return {"iperf3",
            "--client", o.host,
            "--port", std::to_string(o.port),
            "--parallel", std::to_string(o.streams),
            "--time", format_number("%g", o.seconds),
            "--connect-timeout", std::to_string(static_cast<long>(o.connect_timeout_s * 1000)),
            "--json"};
}

coflow::Argv server_argv(int port) {
    return {"iperf3", "--server", "--one-off", "--port", std::to_string(port)};
}

ProbeReading parse_iperf3_json(const std::string& json) {
    nlohmann::json d;
    try {
        d = nlohmann::json::parse(json);
    } catch (const nlohmann::json::exception&) {
        throw InputError(kSource, 0, "", "its output is not JSON" +
                                             (json.empty() ? std::string(" (it printed nothing)") : ": " + json.substr(0, 200)));
    }
    if (d.contains("error") && d["error"].is_string())
        throw InputError(kSource, 0, "error", d["error"].get<std::string>());
    const auto* received = d.contains("end") && d["end"].contains("sum_received") ? &d["end"]["sum_received"] : nullptr;
    if (!received || !received->contains("bits_per_second") || !(*received)["bits_per_second"].is_number())
        throw InputError(kSource, 0, "end.sum_received.bits_per_second", "missing: not a TCP test's output");
    ProbeReading r;
    r.bandwidth_Bps = (*received)["bits_per_second"].get<double>() / 8;
    r.seconds = received->value("seconds", 0.0);
    return r;
}

namespace {

// A socket of `family` bound to `port` on every address with SO_REUSEADDR (an IPv6 one takes
// IPv4 too), or -errno.
int bind_family(int family, int port) {
    const int fd = ::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -errno;
    const int on = 1, off = 0;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    sockaddr_storage a{};
    socklen_t len = 0;
    if (family == AF_INET6) {
        ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off);
        auto* a6 = reinterpret_cast<sockaddr_in6*>(&a);
        a6->sin6_family = AF_INET6;
        a6->sin6_port = htons(static_cast<uint16_t>(port));
        len = sizeof *a6;
    } else {
        auto* a4 = reinterpret_cast<sockaddr_in*>(&a);
        a4->sin_family = AF_INET;
        a4->sin_port = htons(static_cast<uint16_t>(port));
        len = sizeof *a4;
    }
    if (::bind(fd, reinterpret_cast<sockaddr*>(&a), len) == 0) return fd;
    const int err = errno;
    ::close(fd);
    return -err;
}

// A socket bound to `port` on every address: IPv6 with IPv4 mapped, IPv4 alone on a host without
// IPv6; or -errno.
int bind_any(int port) {
    const int fd = bind_family(AF_INET6, port);
    if (fd >= 0 || (fd != -EAFNOSUPPORT && fd != -EADDRNOTAVAIL)) return fd;
    return bind_family(AF_INET, port);
}

// bind_any, tried again while the port is in use and wait_s lasts: the server of a probe that
// ended a moment ago may still hold it on this node.
int bind_within(int port, double wait_s) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(wait_s);
    for (;;) {
        const int fd = bind_any(port);
        if (fd >= 0 || fd != -EADDRINUSE || std::chrono::steady_clock::now() >= until) return fd;
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
}

[[noreturn]] void port_refused(int port, int err, double wait_s) {
    std::string why = "cannot listen on port " + std::to_string(port) + ": " + std::strerror(err);
    if (err == EADDRINUSE && wait_s > 0) why += " for " + format_number("%g", wait_s) + " s (another probe's server on this node?)";
    throw InputError("probe", 0, "port", why);
}

}  // namespace

RttListener::RttListener(int port, double wait_s) {
    fd_ = bind_within(port, wait_s);
    if (fd_ < 0) port_refused(port, -fd_, wait_s);
    if (::listen(fd_, 64) != 0) {
        const int err = errno;
        ::close(fd_);
        port_refused(port, err, 0);
    }
}

void await_free_port(int port, double wait_s) {
    const int fd = bind_within(port, wait_s);
    if (fd < 0) port_refused(port, -fd, wait_s);
    ::close(fd);   // bound, never listened on or connected: leaves nothing behind
}

RttListener::~RttListener() {
    if (fd_ >= 0) ::close(fd_);
}

double handshake_rtt(const std::string& host, int port, int count, double timeout_s) {
    addrinfo hints{};
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    if (const int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found); rc != 0)
        throw InputError("probe", 0, "host", "cannot resolve '" + host + "': " + ::gai_strerror(rc));
    double best = std::numeric_limits<double>::infinity();
    std::string why = "no answer";
    for (int i = 0; i < count; ++i) {
        for (const addrinfo* ai = found; ai; ai = ai->ai_next) {
            const int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
            if (fd < 0) continue;
            const auto t0 = std::chrono::steady_clock::now();
            int rc = ::connect(fd, ai->ai_addr, ai->ai_addrlen);
            if (rc != 0 && errno == EINPROGRESS) {
                pollfd p{fd, POLLOUT, 0};
                rc = ::poll(&p, 1, static_cast<int>(timeout_s * 1000)) == 1 ? 0 : -1;
                int err = rc == 0 ? 0 : ETIMEDOUT;
                socklen_t len = sizeof err;
                if (rc == 0) ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
                if (err != 0) {
                    rc = -1;
                    errno = err;
                }
            }
            const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            if (rc == 0) best = std::min(best, s);
            else why = std::strerror(errno);
            ::close(fd);
            if (rc == 0) break;
        }
        if (!std::isfinite(best)) break;   // a far side that did not answer once will not answer four more times
    }
    ::freeaddrinfo(found);
    if (!std::isfinite(best))
        throw InputError("probe", 0, "host", host + ":" + std::to_string(port) + " did not answer (" + why +
                                                 "): is `spiderflow probe serve` running there?");
    return best;
}

ProbeReading measure(coflow::CommandRunner& runner, const ProbeOptions& o) {
    if (o.host.empty()) throw InputError("probe", 0, "host", "no far side named");
    if (o.streams < 1 || o.streams > 128) throw InputError("probe", 0, "streams", "must be 1 to 128, not " + std::to_string(o.streams));
    if (!(o.seconds >= 1 && o.seconds <= 60)) throw InputError("probe", 0, "seconds", "must be 1 to 60, not " + format_number("%g", o.seconds));
    const double rtt = handshake_rtt(o.host, rtt_port(o.port), 5, o.connect_timeout_s);
    const coflow::CommandResult res = runner.run(client_argv(o), false, true);
    if (res.status == 127) throw InputError(kSource, 0, "", "could not be started (apt-get install iperf3)");
    // iperf3 exits 1 on a failed test and still prints its JSON with the reason.
    ProbeReading r = parse_iperf3_json(res.output);
    r.rtt_s = rtt;
    return r;
}

LinkMeasurement to_measurement(const ProbeReading& r, const std::string& a, const std::string& b, SiteTime now) {
    LinkMeasurement m;
    m.a = a;
    m.b = b;
    m.bandwidth_Bps = r.bandwidth_Bps;
    m.latency_s = r.rtt_s / 2;
    m.timestamp = now;
    m.source = "spiderflow-probe";
    return m;
}

}  // namespace spiderflow::probe
