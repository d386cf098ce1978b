// The parts' start barrier of `spiderflow launch`, on loopback: three parts meet whatever order
// they come in; a part that never comes ends the others at the bound, named; a stranger is refused.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <future>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

#include "services/start_barrier/start_barrier.h"

using namespace spiderflow;

namespace {

// A port free on loopback now: the kernel's choice for a socket bound to port 0.
int free_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
        throw std::runtime_error("no free port");
    }
    ::close(fd);
    return ntohs(a.sin_port);
}

// What torch's TCPStore does with MASTER_PORT once the ranks start: listen on [::] without
// SO_REUSEADDR, which a connection of the barrier left in TIME_WAIT on that port would refuse.
bool rank0_can_listen(int port) {
    const int fd = ::socket(AF_INET6, SOCK_STREAM, 0);
    sockaddr_in6 a{};
    a.sin6_family = AF_INET6;
    a.sin6_addr = in6addr_any;
    a.sin6_port = htons(static_cast<uint16_t>(port));
    const bool ok = fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 && ::listen(fd, 1) == 0;
    if (fd >= 0) ::close(fd);
    return ok;
}

BarrierParty party(int part, int parts, int port, double timeout_s, const std::string& xjob = "alpha:7") {
    BarrierParty p;
    p.xjob = xjob;
    p.part = part;
    p.parts = parts;
    p.master_addr = "127.0.0.1";
    p.master_port = port;
    p.timeout_s = timeout_s;
    return p;
}

}  // namespace

TEST(StartBarrier, EveryPartStartsOnceAllHaveCome) {
    const int port = free_port();
    std::ostringstream l1, l2, l0;
    // The others come before part 0 listens: they retry until it does.
    auto p1 = std::async(std::launch::async, [&] { return meet_start_barrier(party(1, 3, port, 20), l1); });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    auto p0 = std::async(std::launch::async, [&] { return meet_start_barrier(party(0, 3, port, 20), l0); });
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    EXPECT_EQ(p0.wait_for(std::chrono::milliseconds(0)), std::future_status::timeout);  // part 2 is missing
    auto p2 = std::async(std::launch::async, [&] { return meet_start_barrier(party(2, 3, port, 20), l2); });
    EXPECT_LT(p2.get(), 20);
    EXPECT_GE(p1.get(), 0.7);
    EXPECT_LT(p0.get(), 20);
    EXPECT_TRUE(rank0_can_listen(port)) << "the barrier left MASTER_PORT unusable for rank 0";
    EXPECT_NE(l1.str().find("every part of cross-site job alpha:7 is running"), std::string::npos) << l1.str();
}

TEST(StartBarrier, APartThatNeverComesEndsTheOthersNamingIt) {
    const int port = free_port();
    std::ostringstream l0, l1;
    auto p1 = std::async(std::launch::async, [&] { return meet_start_barrier(party(1, 3, port, 1.5), l1); });
    try {
        meet_start_barrier(party(0, 3, port, 1.5), l0);
        FAIL() << "part 0 started without part 2";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("part(s) 2 of cross-site job alpha:7 did not start within 1 s"), std::string::npos)
            << e.what();
    }
    try {
        p1.get();
        FAIL() << "part 1 started without part 2";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("parts 2 did not come"), std::string::npos) << e.what();
    }
}

TEST(StartBarrier, APartOfAnotherJobIsRefusedAndPartZeroAloneTimesOut) {
    const int port = free_port();
    std::ostringstream l0, lx;
    auto p0 = std::async(std::launch::async, [&] {
        try {
            meet_start_barrier(party(0, 2, port, 2), l0);
            return std::string("started");
        } catch (const std::runtime_error& e) {
            return std::string(e.what());
        }
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_THROW(meet_start_barrier(party(1, 2, port, 1, "beta:9"), lx), std::runtime_error);
    EXPECT_NE(p0.get().find("part(s) 1 of cross-site job alpha:7 did not start"), std::string::npos);
}
