#include "services/broker/group_commit.h"

#include <algorithm>
#include <utility>

namespace spiderflow::broker {

GroupCommit::GroupCommit(BrokerStore& store, std::function<void(std::exception_ptr)> rolled_back)
    : store_(store), rolled_back_(std::move(rolled_back)) {}

uint64_t GroupCommit::enqueue(StoredPart part, const std::string& holder) {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back({next_, std::move(part), holder});
    return next_++;
}

void GroupCommit::fail_queued(std::exception_ptr why) {
    std::lock_guard<std::mutex> lock(mu_);
    if (queue_.empty()) return;
    for (const Queued& q : queue_) failed_.emplace(q.ticket, why);
    durable_ = std::max(durable_, queue_.back().ticket);
    queue_.clear();
    done_.notify_all();
}

void GroupCommit::wait(uint64_t ticket) {
    std::unique_lock<std::mutex> lock(mu_);
    while (durable_ < ticket) {
        if (committing_) {
            done_.wait(lock);
            continue;
        }
        // Nobody commits: this writer takes everything queued, its own part among them.
        std::vector<Queued> batch = std::move(queue_);
        queue_.clear();
        committing_ = true;
        lock.unlock();
        std::exception_ptr why;
        try {
            std::vector<StoredPart> parts;
            parts.reserve(batch.size());
            for (const Queued& q : batch) parts.push_back(q.part);
            // Parts in write order: a cluster written twice keeps its last. The epoch and the
            // lease holder are the last write's (a broker's holder does not change while it writes).
            store_.save_parts(parts, batch.back().part.epoch, batch.back().holder);
        } catch (...) {
            why = std::current_exception();
        }
        if (why) rolled_back_(why);  // takes the broker's lock; fails what was queued meanwhile
        lock.lock();
        committing_ = false;
        if (why) {
            for (const Queued& q : batch) failed_.emplace(q.ticket, why);
        }
        durable_ = std::max(durable_, batch.back().ticket);
        done_.notify_all();
    }
    if (auto it = failed_.find(ticket); it != failed_.end()) {
        const std::exception_ptr why = it->second;
        failed_.erase(it);
        std::rethrow_exception(why);
    }
}

}  // namespace spiderflow::broker
