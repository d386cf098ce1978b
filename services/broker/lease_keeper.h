// Keeps one broker's place among the brokers that share a store (MariaDB): takes the lease when
// it is free, renews it every third of its lifetime, and says when this broker became active
// (it must take over: reload the state from the store) or standby. While standby it follows the
// active broker's writes, so its reads stay current. Every database call here is on the
// keeper's own store connection, never under the service's lock.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "services/broker/broker_store.h"

namespace spiderflow::broker {

class LeaseKeeper {
public:
    struct Hooks {
        std::function<void()> became_active;                      // before any write is allowed
        std::function<void(const std::string& holder)> became_standby;  // holder: who is active, if known
        std::function<void(uint64_t stored_epoch)> follow;          // standby: the store's epoch, each round
    };
    // `holder` names this broker in the lease row (host:port pid), as the standbys report it.
    LeaseKeeper(std::unique_ptr<BrokerStore> store, std::string holder, int ttl_s, Hooks hooks);
    ~LeaseKeeper();
    LeaseKeeper(const LeaseKeeper&) = delete;
    LeaseKeeper& operator=(const LeaseKeeper&) = delete;

    // One round now (so a lone broker starts active), then a thread doing the rest.
    void start();
    // Stops the thread and gives the lease up if held, so a standby takes over at once.
    void stop();
    // One round: take or renew, or follow. Public for the unit tests.
    void round();

    bool active() const { return active_; }
    // A write found the lease gone (LeaseLost): the next round that holds it again counts as
    // a takeover, so the state is reloaded before writes resume.
    void lost() { active_ = false; }
    const std::string& holder() const { return holder_; }
    // Seconds between rounds: a third of the lease, at most one (a standby notices a lapsed
    // lease within a second of its expiry).
    double period_s() const;

private:
    std::unique_ptr<BrokerStore> store_;
    std::string holder_;
    int ttl_s_;
    Hooks hooks_;
    std::atomic<bool> active_{false};
    bool announced_ = false;  // a first "standby" is said once, not every round
    std::mutex mu_;
    std::condition_variable wake_;
    bool stopping_ = false;
    std::thread thread_;
};

}  // namespace spiderflow::broker
