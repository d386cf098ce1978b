#include "services/broker/lease_keeper.h"

#include <algorithm>
#include <chrono>
#include <iostream>

namespace spiderflow::broker {

LeaseKeeper::LeaseKeeper(std::unique_ptr<BrokerStore> store, std::string holder, int ttl_s, Hooks hooks)
    : store_(std::move(store)), holder_(std::move(holder)), ttl_s_(ttl_s), hooks_(std::move(hooks)) {}

LeaseKeeper::~LeaseKeeper() { stop(); }

double LeaseKeeper::period_s() const { return std::min(1.0, ttl_s_ / 3.0); }

void LeaseKeeper::round() {
    std::string current;
    bool held = false;
    try {
        held = store_->hold_lease(holder_, ttl_s_, &current);
    } catch (const std::exception& e) {
        // Cannot reach the database: nobody can confirm this broker's lease, so it stops
        // deciding now rather than when the lease would have run out.
        std::cerr << "spiderflow: brokerd: lease: " << e.what() << "\n";
        current.clear();
    }
    if (held && !active_) {
        try {
            hooks_.became_active();
        } catch (const std::exception& e) {
            // It could not read its predecessor's last writes: deciding on an older state would
            // lose them, so it gives the lease back and tries again next round.
            std::cerr << "spiderflow: brokerd: cannot take over: " << e.what() << "\n";
            try {
                store_->release_lease(holder_);
            } catch (const std::exception&) {
                // it expires by itself
            }
            held = false;
        }
    }
    if (held && !active_) {
        active_ = true;
        announced_ = true;
        std::cerr << "spiderflow: brokerd: active: holds the lease (" << holder_ << ", " << ttl_s_ << " s)\n";
    } else if (!held && (active_ || !announced_)) {
        active_ = false;
        announced_ = true;
        hooks_.became_standby(current);
        std::cerr << "spiderflow: brokerd: standby: serving reads; "
                  << (current.empty() ? std::string("the lease holder is unknown") : current + " holds the lease")
                  << "\n";
    }
    if (!held) {
        try {
            hooks_.follow(store_->stored_epoch());
        } catch (const std::exception& e) {
            std::cerr << "spiderflow: brokerd: standby: cannot follow the store: " << e.what() << "\n";
        }
    }
}

void LeaseKeeper::start() {
    round();
    thread_ = std::thread([this] {
        std::unique_lock<std::mutex> lock(mu_);
        while (!stopping_) {
            wake_.wait_for(lock, std::chrono::duration<double>(period_s()), [this] { return stopping_; });
            if (stopping_) break;
            lock.unlock();
            round();
            lock.lock();
        }
    });
}

void LeaseKeeper::stop() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        if (stopping_) return;
        stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
    if (active_) {
        active_ = false;
        try {
            store_->release_lease(holder_);
            std::cerr << "spiderflow: brokerd: lease given up\n";
        } catch (const std::exception& e) {
            std::cerr << "spiderflow: brokerd: could not give the lease up (it expires by itself): " << e.what() << "\n";
        }
    }
}

}  // namespace spiderflow::broker
