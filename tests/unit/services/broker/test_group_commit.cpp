// The broker's batched commits: writes queued while a commit runs go out together in the next
// one, in write order; a batch the store refuses fails its writes and every write queued after
// it, once the broker has rolled its state back.
#include <gtest/gtest.h>

#include <condition_variable>
#include <future>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "services/broker/group_commit.h"

using namespace spiderflow::broker;

namespace {

// A store whose commits wait until the test lets them go, and fail when told to.
class GatedStore : public BrokerStore {
public:
    std::vector<StoredPart> load_parts(uint64_t, uint64_t*) override { return {}; }
    uint64_t stored_epoch() override { return 0; }
    void save_parts(const std::vector<StoredPart>& parts, uint64_t epoch, const std::string&) override {
        std::unique_lock<std::mutex> lock(mu);
        entered += 1;
        changed.notify_all();
        changed.wait(lock, [&] { return open; });
        if (fail_next) {
            fail_next = false;
            throw std::runtime_error("disk full");
        }
        std::vector<std::string> names;
        for (const StoredPart& p : parts) names.push_back(p.cluster);
        batches.push_back(names);
        epochs.push_back(epoch);
    }
    std::vector<StoredXJob> load_xjobs() override { return {}; }
    void save_xjobs(const std::vector<StoredXJob>&, const std::string&) override {}
    uint64_t stored_xjobs_version() override { return 0; }
    std::string describe() const override { return "gated"; }

    void let_go() {
        std::lock_guard<std::mutex> lock(mu);
        open = true;
        changed.notify_all();
    }
    void wait_entered(int n) {
        std::unique_lock<std::mutex> lock(mu);
        changed.wait(lock, [&] { return entered >= n; });
    }

    std::mutex mu;
    std::condition_variable changed;
    bool open = false, fail_next = false;
    int entered = 0;
    std::vector<std::vector<std::string>> batches;
    std::vector<uint64_t> epochs;
};

}  // namespace

TEST(GroupCommit, WritesQueuedDuringACommitGoOutTogetherInOrder) {
    GatedStore store;
    int rollbacks = 0;
    GroupCommit commits(store, [&](std::exception_ptr) { ++rollbacks; });
    const uint64_t first = commits.enqueue({"a", "{}", 1, 1}, "");
    auto w1 = std::async(std::launch::async, [&] { commits.wait(first); });
    store.wait_entered(1);  // the first commit holds the store: the next writes queue behind it
    const uint64_t t2 = commits.enqueue({"b", "{}", 2, 2}, "");
    const uint64_t t3 = commits.enqueue({"c", "{}", 3, 3}, "");
    const uint64_t t4 = commits.enqueue({"b", "{}", 4, 4}, "");
    auto w2 = std::async(std::launch::async, [&] { commits.wait(t2); });
    auto w3 = std::async(std::launch::async, [&] { commits.wait(t3); });
    auto w4 = std::async(std::launch::async, [&] { commits.wait(t4); });
    store.let_go();
    w1.get(), w2.get(), w3.get(), w4.get();
    ASSERT_EQ(store.batches.size(), 2u) << "one commit for the first write, one for the three behind it";
    EXPECT_EQ(store.batches[1], (std::vector<std::string>{"b", "c", "b"}));
    EXPECT_EQ(store.epochs[1], 4u) << "the batch stores the last write's epoch";
    EXPECT_EQ(rollbacks, 0);
}

TEST(GroupCommit, ARefusedBatchFailsItsWritesAndThoseQueuedAfterOnce) {
    GatedStore store;
    std::vector<uint64_t> late;
    GroupCommit* self = nullptr;
    int rollbacks = 0;
    GroupCommit commits(store, [&](std::exception_ptr why) {
        ++rollbacks;
        self->fail_queued(why);  // what the broker does under its lock, after reloading
    });
    self = &commits;
    const uint64_t first = commits.enqueue({"a", "{}", 1, 1}, "");
    store.fail_next = true;
    auto w1 = std::async(std::launch::async, [&] { commits.wait(first); });
    store.wait_entered(1);
    const uint64_t queued = commits.enqueue({"b", "{}", 2, 2}, "");  // applied in memory after the failed one
    store.let_go();
    EXPECT_THROW(w1.get(), std::runtime_error);
    EXPECT_THROW(commits.wait(queued), std::runtime_error) << "the rollback undid it too";
    EXPECT_EQ(rollbacks, 1);
    EXPECT_TRUE(store.batches.empty());
    // The store takes writes again afterwards.
    const uint64_t again = commits.enqueue({"c", "{}", 3, 3}, "");
    EXPECT_NO_THROW(commits.wait(again));
    ASSERT_EQ(store.batches.size(), 1u);
    EXPECT_EQ(store.batches[0], std::vector<std::string>{"c"});
}
