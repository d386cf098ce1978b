// Where the broker keeps what clusters published, behind one interface with two backends:
// SQLite (the embedded default, WAL mode) and MariaDB (for sites that already run a replicated
// MariaDB for slurmdbd). A write returns only once it is durable, so an update the broker
// acknowledged survives a kill -9; each write is one transaction, so none is half-applied.
//
// Several brokers may share one MariaDB. Exactly one of them decides: the one holding the lease
// row, whose expiry is kept by the database's clock (so the brokers' clocks do not matter). A
// write checks the lease inside its own transaction, so a broker that lost the lease without
// noticing cannot write (the lease fences it).
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace spiderflow::broker {

// One cluster's part of the federation state, as its snapshot (site-state JSON).
struct StoredPart {
    std::string cluster;
    std::string snapshot_json;
    int64_t updated_at = 0;
    uint64_t epoch = 0;  // the federation's epoch after the write that stored it (0: before it was kept)
};

// A write refused because this broker no longer holds the lease; `holder` is who does (empty
// when nobody does). The state is unchanged.
class LeaseLost : public std::runtime_error {
public:
    explicit LeaseLost(const std::string& holder)
        : std::runtime_error("this broker no longer holds the lease" + (holder.empty() ? "" : " (" + holder + " does)")),
          holder_(holder) {}
    const std::string& holder() const { return holder_; }

private:
    std::string holder_;
};

// The store is another broker's: a SQLite file has one broker, and its lock file (FILE.lock)
// names the one that holds it. brokerd exits 1 on it, as on an address in use.
class StoreInUse : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A cross-site job as the co-allocator left it: its JSON (services/coalloc/xjob_json.h).
struct StoredXJob {
    std::string id;
    uint64_t seq = 0;
    std::string doc;  // empty in save_xjobs: the job is deleted
};

class BrokerStore {
public:
    virtual ~BrokerStore() = default;
    // The parts written after epoch `since` (every part for 0) and the federation's epoch, read
    // together from one snapshot of the store: a (re)start, and a standby following the active
    // broker (only what changed, so its state at an epoch is exactly the active one's).
    virtual std::vector<StoredPart> load_parts(uint64_t since, uint64_t* epoch) = 0;
    // The stored epoch alone: a standby reloads only when it moved.
    virtual uint64_t stored_epoch() = 0;
    // Clusters' new parts, in write order (a cluster twice keeps its last), each with its write's
    // epoch, and the federation's new epoch, in one transaction: atomically and durably. On a shared store, only while
    // `holder` holds the lease; LeaseLost otherwise.
    virtual void save_parts(const std::vector<StoredPart>& parts, uint64_t epoch, const std::string& holder) = 0;
    void save_part(const StoredPart& part, const std::string& holder) { save_parts({part}, part.epoch, holder); }

    // Every cross-site job, in arrival order.
    virtual std::vector<StoredXJob> load_xjobs() = 0;
    // The jobs one decision changed, atomically and durably, with the lease fence of save_parts.
    virtual void save_xjobs(const std::vector<StoredXJob>& jobs, const std::string& holder) = 0;
    // Moves with every save_xjobs: a standby re-reads the jobs only when it moved.
    virtual uint64_t stored_xjobs_version() = 0;

    // True when other brokers may use the same store, so the lease decides who writes.
    virtual bool shared() const { return false; }
    // Takes or renews the lease for `holder` for ttl_s seconds. True when `holder` holds it
    // now; otherwise `*current` names who does. A store nobody shares always grants it.
    virtual bool hold_lease(const std::string& holder, int ttl_s, std::string* current) {
        (void)holder, (void)ttl_s, (void)current;
        return true;
    }
    // Gives the lease up at once (a clean stop), so a standby need not wait for it to expire.
    virtual void release_lease(const std::string& holder) { (void)holder; }

    virtual std::string describe() const = 0;
};

struct StoreOptions {
    std::string password_file;  // MariaDB: the password, in a file only its owner may read
    // SQLite: who opens the file ("HOST:PORT pid N"), written into its lock file so that a
    // second broker on the same file can say who holds it.
    std::string owner;
};

// "FILE", "sqlite:FILE" or "mysql://USER@HOST[:PORT]/DATABASE[?socket=PATH]" (mariadb:// too).
// Throws std::runtime_error with the reason (unreadable file, unreachable server, bad URL), and
// StoreInUse when a SQLite file is held by another broker (its lock, FILE.lock, is exclusive for
// as long as the store is open, so two brokers never write one file: no split brain).
std::unique_ptr<BrokerStore> open_store(const std::string& location, const StoreOptions& options = {});

// The parts of a mysql:// URL; throws std::runtime_error naming what is wrong.
struct MariadbLocation {
    std::string user, host, database, socket;
    unsigned port = 3306;
};
MariadbLocation parse_mariadb_url(const std::string& url);

}  // namespace spiderflow::broker
