// Where the broker keeps what clusters published, behind one interface: SQLite (the embedded
// default, WAL mode) today. A write returns only once it is durable, so an update the broker
// acknowledged survives a kill -9; each write is one transaction, so none is half-applied.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace spiderflow::broker {

// One cluster's part of the federation state, as its snapshot (site-state JSON).
struct StoredPart {
    std::string cluster;
    std::string snapshot_json;
    int64_t updated_at = 0;
};

class BrokerStore {
public:
    virtual ~BrokerStore() = default;
    // Every part and the federation's epoch, for a (re)start.
    virtual std::vector<StoredPart> load_parts(uint64_t* epoch) = 0;
    // A cluster's new part with the federation's new epoch, atomically and durably.
    virtual void save_part(const StoredPart& part, uint64_t epoch) = 0;
    virtual std::string describe() const = 0;
};

// "FILE" or "sqlite:FILE". Throws std::runtime_error with the reason (unreadable file, a URL
// scheme this build has no backend for).
std::unique_ptr<BrokerStore> open_store(const std::string& location);

}  // namespace spiderflow::broker
