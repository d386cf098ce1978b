// A store one call at a time: the broker's commits run outside its lock (group_commit.h), beside
// the cross-site jobs' writes and a standby's reloads under it, and neither backend's connection
// takes two transactions at once.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "services/broker/broker_store.h"

namespace spiderflow::broker {

class SerializedStore : public BrokerStore {
    template <class F>
    auto one(F f) {
        std::lock_guard<std::mutex> lock(mu_);
        return f();
    }

public:
    explicit SerializedStore(std::unique_ptr<BrokerStore> store) : store_(std::move(store)) {}

    std::vector<StoredPart> load_parts(uint64_t since, uint64_t* epoch) override {
        return one([&] { return store_->load_parts(since, epoch); });
    }
    uint64_t stored_epoch() override { return one([&] { return store_->stored_epoch(); }); }
    void save_parts(const std::vector<StoredPart>& parts, uint64_t epoch, const std::string& holder) override {
        one([&] { store_->save_parts(parts, epoch, holder); });
    }
    std::vector<StoredXJob> load_xjobs() override { return one([&] { return store_->load_xjobs(); }); }
    void save_xjobs(const std::vector<StoredXJob>& jobs, const std::string& holder) override {
        one([&] { store_->save_xjobs(jobs, holder); });
    }
    uint64_t stored_xjobs_version() override { return one([&] { return store_->stored_xjobs_version(); }); }
    bool shared() const override { return store_->shared(); }
    bool hold_lease(const std::string& holder, int ttl_s, std::string* current) override {
        return one([&] { return store_->hold_lease(holder, ttl_s, current); });
    }
    void release_lease(const std::string& holder) override { one([&] { store_->release_lease(holder); }); }
    std::string describe() const override { return store_->describe(); }

private:
    std::unique_ptr<BrokerStore> store_;
    std::mutex mu_;
};

}  // namespace spiderflow::broker
