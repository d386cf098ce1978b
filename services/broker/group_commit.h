// The durable half of the broker's writes, batched: each write changes the state under the
// broker's lock and queues its cluster's new part; the first writer to find no commit running
// commits every part queued so far in one transaction (one fsync), and each writer answers once
// its own part is durable. Writes stay totally ordered (the queue keeps the lock's order) and an
// answered write is still durable, but 200 writes a second no longer take 200 fsyncs in a row
// under the lock, which readers and other writers waited on.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "services/broker/broker_store.h"

namespace spiderflow::broker {

class GroupCommit {
public:
    // `rolled_back` runs when a batch failed, after the store refused it and before any writer
    // hears of it: the state in memory is then ahead of the store, and must be made the store's
    // again (the broker reloads it, under its lock). It gets nothing queued: it must take the
    // broker's lock, so later writes are queued only after the reload, and call fail_queued.
    GroupCommit(BrokerStore& store, std::function<void(std::exception_ptr)> rolled_back);

    // Queues a write; call under the broker's lock so tickets follow the state's order.
    // `part.epoch` is the epoch the write made.
    uint64_t enqueue(StoredPart part, const std::string& holder);
    // Returns once `ticket` is durable; rethrows what the store threw (LeaseLost among them)
    // when its batch failed, and for every write queued after it (the reload undid those too).
    void wait(uint64_t ticket);
    // While the broker's lock is held after a failed batch: every write still queued fails too.
    void fail_queued(std::exception_ptr why);

private:
    struct Queued {
        uint64_t ticket;
        StoredPart part;
        std::string holder;
    };
    BrokerStore& store_;
    std::function<void(std::exception_ptr)> rolled_back_;
    std::mutex mu_;
    std::condition_variable done_;
    std::vector<Queued> queue_;
    uint64_t next_ = 1;
    uint64_t durable_ = 0;                  // every ticket up to here is durable or failed
    std::map<uint64_t, std::exception_ptr> failed_;  // a failed write's ticket, until its writer hears
    bool committing_ = false;
};

}  // namespace spiderflow::broker
