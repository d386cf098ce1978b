// A broker on loopback, in the test's own process (cpp-httplib), that answers every request with
// what the test sets and remembers what it was asked: enough to watch the client's retries,
// failover, headers and timeouts without spiderflow-brokerd.
#pragma once

#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace spiderflow::test {

struct SeenRequest {
    std::string method, path, body, authorization, content_type;
};

class LoopbackBroker {
public:
    // Answers 200 {} until answer() says otherwise.
    LoopbackBroker() {
        server_.set_keep_alive_max_count(1);
        // Routes, not a pre-routing handler: only a routed request has its body read.
        const auto handler = [this](const httplib::Request& req, httplib::Response& res) { handle(req, res); };
        server_.Get(".*", handler);
        server_.Put(".*", handler);
        server_.Post(".*", handler);
        port_ = server_.bind_to_any_port("127.0.0.1");
        thread_ = std::thread([this] { server_.listen_after_bind(); });
        while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ~LoopbackBroker() {
        release();
        server_.stop();
        thread_.join();
    }
    LoopbackBroker(const LoopbackBroker&) = delete;
    LoopbackBroker& operator=(const LoopbackBroker&) = delete;

    std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
    void answer(int status, std::string body) {
        std::lock_guard<std::mutex> lock(mu_);
        status_ = status;
        body_ = std::move(body);
    }
    // Requests wait, unanswered, until release() (or 10 s).
    void stall() { stall_ = true; }
    void release() {
        {
            std::lock_guard<std::mutex> lock(mu_);
            stall_ = false;
        }
        released_.notify_all();
    }
    int hits() const {
        std::lock_guard<std::mutex> lock(mu_);
        return hits_;
    }
    SeenRequest last() const {
        std::lock_guard<std::mutex> lock(mu_);
        return last_;
    }
    bool had_authorization() const {
        std::lock_guard<std::mutex> lock(mu_);
        return has_authorization_;
    }

private:
    void handle(const httplib::Request& req, httplib::Response& res) {
        {
            std::lock_guard<std::mutex> lock(mu_);
            ++hits_;
            last_ = {req.method, req.path, req.body, req.get_header_value("Authorization"), req.get_header_value("Content-Type")};
            has_authorization_ = req.has_header("Authorization");
        }
        if (stall_) {
            std::unique_lock<std::mutex> lock(mu_);
            released_.wait_for(lock, std::chrono::seconds(10), [this] { return !stall_; });
        }
        std::lock_guard<std::mutex> lock(mu_);
        res.status = status_;
        res.set_content(body_, "application/json");
    }

    httplib::Server server_;
    std::thread thread_;
    int port_ = 0;
    mutable std::mutex mu_;
    std::condition_variable released_;
    std::atomic<bool> stall_{false};
    int status_ = 200;
    std::string body_ = "{}";
    int hits_ = 0;
    SeenRequest last_;
    bool has_authorization_ = false;
};

// A loopback port nothing listens on: bound, then closed, so a connection is refused at once.
inline int closed_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    ::close(fd);
    return ntohs(a.sin_port);
}

}  // namespace spiderflow::test
