#include "services/start_barrier/start_barrier.h"

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <ostream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace spiderflow {
namespace {

using Clock = std::chrono::steady_clock;
constexpr const char* kRoute = "/v1/start-barrier";

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::string missing_parts(const std::set<int>& came, int parts) {
    std::string out;
    for (int k = 1; k < parts; ++k) {
        if (came.count(k) == 0) out += (out.empty() ? "" : ", ") + std::to_string(k);
    }
    return out;
}

// Part 0: answers every other part once all have come (or says who did not, at the bound).
double host_barrier(const BarrierParty& p, Clock::time_point t0, std::ostream& log) {
    const auto deadline = t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(p.timeout_s));
    std::mutex mu;
    std::condition_variable changed;
    std::set<int> came;
    httplib::Server server;
    // One waiting request per part, each on its own worker.
    server.new_task_queue = [n = p.parts] { return new httplib::ThreadPool(static_cast<size_t>(n) + 1); };
    server.Post(kRoute, [&](const httplib::Request& req, httplib::Response& res) {
        std::istringstream in(req.body);
        std::string xjob;
        int part = -1;
        if (!(in >> xjob >> part) || xjob != p.xjob || part <= 0 || part >= p.parts) {
            res.status = 400;
            res.set_content("not a part of cross-site job " + p.xjob + "\n", "text/plain");
            return;
        }
        std::unique_lock<std::mutex> lock(mu);
        came.insert(part);
        changed.notify_all();
        const bool all = changed.wait_until(lock, deadline, [&] { return static_cast<int>(came.size()) == p.parts - 1; });
        res.status = all ? 200 : 504;
        res.set_content(all ? "go\n" : "parts " + missing_parts(came, p.parts) + " did not come\n", "text/plain");
    });
    if (!server.bind_to_port("0.0.0.0", p.master_port)) {
        throw std::runtime_error("cannot listen on port " + std::to_string(p.master_port) +
                                 " (MASTER_PORT) for the other parts: it is taken on this node");
    }
    std::thread listener([&] { server.listen_after_bind(); });
    bool all = false;
    std::set<int> seen;
    {
        std::unique_lock<std::mutex> lock(mu);
        all = changed.wait_until(lock, deadline, [&] { return static_cast<int>(came.size()) == p.parts - 1; });
        seen = came;
    }
    // Every waiting request has its answer once the set is full or the bound passed. The others
    // close their connections as soon as they read it; stopping before that would close them
    // from this side and leave them in TIME_WAIT on MASTER_PORT, where rank 0's rendezvous
    // (torch's TCPStore) is refused its bind (EADDRINUSE). So the others get time to hang up.
    std::this_thread::sleep_for(std::chrono::duration<double>(p.hangup_grace_s));
    server.stop();
    listener.join();
    if (!all) {
        throw std::runtime_error("part(s) " + missing_parts(seen, p.parts) + " of cross-site job " + p.xjob +
                                 " did not start within " + std::to_string(static_cast<int>(p.timeout_s)) + " s");
    }
    log << "spiderflow: every part of cross-site job " << p.xjob << " is running (waited " << since(t0)
        << " s here); starting the ranks\n";
    return since(t0);
}

// Any other part: asks part 0 until it answers or the bound passes.
double join_barrier(const BarrierParty& p, Clock::time_point t0, std::ostream& log) {
    httplib::Client client(p.master_addr, p.master_port);
    client.set_connection_timeout(2, 0);
    // Keep-alive, so that part 0 does not hang up after its answer (httplib's client asks it to
    // otherwise): this side closes first (client.stop()) and holds the TIME_WAIT.
    client.set_keep_alive(true);
    std::string last = "part 0 (at " + p.master_addr + ":" + std::to_string(p.master_port) + ") never answered";
    while (since(t0) < p.timeout_s) {
        const double left = p.timeout_s - since(t0);
        client.set_read_timeout(static_cast<time_t>(left) + 1, 0);
        const auto res = client.Post(kRoute, p.xjob + " " + std::to_string(p.part) + "\n", "text/plain");
        if (res && res->status == 200) {
            client.stop();  // hang up first: the TIME_WAIT stays on this side, off MASTER_PORT
            log << "spiderflow: every part of cross-site job " << p.xjob << " is running (waited " << since(t0)
                << " s here); starting the ranks\n";
            return since(t0);
        }
        if (res) {
            last = "part 0 answered: " + res->body;
            if (res->status == 400 || res->status == 504) break;
        }
        // Part 0's launcher is not listening yet (its batch step starts later than this one).
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    while (!last.empty() && last.back() == '\n') last.pop_back();
    throw std::runtime_error("part " + std::to_string(p.part) + " of cross-site job " + p.xjob + " waited " +
                             std::to_string(static_cast<int>(since(t0))) + " s for every part to start: " + last);
}

}  // namespace

double meet_start_barrier(const BarrierParty& party, std::ostream& log) {
    const auto t0 = Clock::now();
    if (party.parts < 2) return 0;
    log << "spiderflow: part " << party.part << " of cross-site job " << party.xjob << " waits (up to "
        << static_cast<int>(party.timeout_s) << " s) until all " << party.parts << " parts run\n";
    return party.part == 0 ? host_barrier(party, t0, log) : join_barrier(party, t0, log);
}

}  // namespace spiderflow
