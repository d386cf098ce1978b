// The SQLite store: WAL journal with synchronous=FULL, so a committed write survives a crash of
// the process or the machine; prepared statements only.
#include <sqlite3.h>

#include <unistd.h>

#include <optional>
#include <stdexcept>

#include "common/util/file_lock.h"
#include "services/broker/broker_store.h"
#include "services/broker/store_backends.h"

namespace spiderflow::broker {
namespace {

class Statement {
public:
    Statement(sqlite3* db, const char* sql) : db_(db) {
        if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) fail("prepare");
    }
    ~Statement() { sqlite3_finalize(stmt_); }
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;

    void bind(int i, const std::string& v) {
        if (sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT) != SQLITE_OK) fail("bind");
    }
    void bind(int i, int64_t v) {
        if (sqlite3_bind_int64(stmt_, i, v) != SQLITE_OK) fail("bind");
    }
    // true while a row is there
    bool step() {
        const int rc = sqlite3_step(stmt_);
        if (rc == SQLITE_ROW) return true;
        if (rc != SQLITE_DONE) fail("step");
        return false;
    }
    std::string text(int col) const {
        const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
        return p ? std::string(p, static_cast<size_t>(sqlite3_column_bytes(stmt_, col))) : std::string();
    }
    int64_t integer(int col) const { return sqlite3_column_int64(stmt_, col); }

private:
    [[noreturn]] void fail(const char* what) const {
        throw std::runtime_error(std::string("sqlite ") + what + ": " + sqlite3_errmsg(db_));
    }
    sqlite3* db_;
    sqlite3_stmt* stmt_ = nullptr;
};

class SqliteStore : public BrokerStore {
public:
    SqliteStore(const std::string& path, const std::string& owner) : path_(path), lock_(lock_file(path, owner)) {
        if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                            nullptr) != SQLITE_OK) {
            const std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
            sqlite3_close(db_);
            throw std::runtime_error("cannot open " + path + ": " + why);
        }
        sqlite3_busy_timeout(db_, 5000);
        exec("PRAGMA journal_mode=WAL");
        exec("PRAGMA synchronous=FULL");
        exec("CREATE TABLE IF NOT EXISTS parts (cluster TEXT PRIMARY KEY, snapshot TEXT NOT NULL, "
             "updated_at INTEGER NOT NULL, epoch INTEGER NOT NULL DEFAULT 0)");
        if (!has_column("parts", "epoch")) exec("ALTER TABLE parts ADD COLUMN epoch INTEGER NOT NULL DEFAULT 0");  // a store from before
        exec("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL)");
        exec("CREATE TABLE IF NOT EXISTS xjobs (id TEXT PRIMARY KEY, seq INTEGER NOT NULL, doc TEXT NOT NULL)");
    }
    ~SqliteStore() override { sqlite3_close(db_); }

    std::vector<StoredPart> load_parts(uint64_t since, uint64_t* epoch) override {
        exec("BEGIN");  // one snapshot (WAL): the epoch and the parts agree
        try {
            std::vector<StoredPart> out;
            *epoch = stored_epoch();
            Statement parts(db_, "SELECT cluster, snapshot, updated_at, epoch FROM parts WHERE epoch > ?1 OR ?1 = 0 "
                                 "ORDER BY cluster");
            parts.bind(1, static_cast<int64_t>(since));
            while (parts.step()) {
                out.push_back({parts.text(0), parts.text(1), parts.integer(2), static_cast<uint64_t>(parts.integer(3))});
            }
            exec("COMMIT");
            return out;
        } catch (...) {
            sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
            throw;
        }
    }

    uint64_t stored_epoch() override { return meta_value("epoch"); }

    std::vector<StoredXJob> load_xjobs() override {
        std::vector<StoredXJob> out;
        Statement jobs(db_, "SELECT id, seq, doc FROM xjobs ORDER BY seq");
        while (jobs.step()) out.push_back({jobs.text(0), static_cast<uint64_t>(jobs.integer(1)), jobs.text(2)});
        return out;
    }

    void save_xjobs(const std::vector<StoredXJob>& jobs, const std::string&) override {
        exec("BEGIN IMMEDIATE");
        try {
            for (const StoredXJob& j : jobs) {
                if (j.doc.empty()) {
                    Statement del(db_, "DELETE FROM xjobs WHERE id = ?1");
                    del.bind(1, j.id);
                    del.step();
                    continue;
                }
                Statement put(db_, "INSERT INTO xjobs (id, seq, doc) VALUES (?1, ?2, ?3) "
                                   "ON CONFLICT(id) DO UPDATE SET seq = ?2, doc = ?3");
                put.bind(1, j.id);
                put.bind(2, static_cast<int64_t>(j.seq));
                put.bind(3, j.doc);
                put.step();
            }
            exec("INSERT INTO meta (key, value) VALUES ('xjobs', 1) ON CONFLICT(key) DO UPDATE SET value = value + 1");
            exec("COMMIT");
        } catch (...) {
            sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
            throw;
        }
    }

    uint64_t stored_xjobs_version() override { return meta_value("xjobs"); }

    // One broker per SQLite file: no lease to check.
    void save_parts(const std::vector<StoredPart>& parts, uint64_t epoch, const std::string&) override {
        exec("BEGIN IMMEDIATE");
        try {
            for (const StoredPart& part : parts) {
                Statement put(db_, "INSERT INTO parts (cluster, snapshot, updated_at, epoch) VALUES (?1, ?2, ?3, ?4) "
                                   "ON CONFLICT(cluster) DO UPDATE SET snapshot = ?2, updated_at = ?3, epoch = ?4");
                put.bind(1, part.cluster);
                put.bind(2, part.snapshot_json);
                put.bind(3, part.updated_at);
                put.bind(4, static_cast<int64_t>(part.epoch));
                put.step();
            }
            Statement meta(db_, "INSERT INTO meta (key, value) VALUES ('epoch', ?1) "
                                "ON CONFLICT(key) DO UPDATE SET value = ?1");
            meta.bind(1, static_cast<int64_t>(epoch));
            meta.step();
            exec("COMMIT");
        } catch (...) {
            sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
            throw;
        }
    }

    std::string describe() const override { return "sqlite:" + path_; }

private:
    bool has_column(const char* table, const std::string& column) {
        Statement info(db_, (std::string("PRAGMA table_info(") + table + ")").c_str());
        while (info.step()) {
            if (info.text(1) == column) return true;
        }
        return false;
    }
    // The lock beside the file, taken before the file is opened and held while it is: SQLite's
    // own locks order transactions but let a second broker run over the same state, each with
    // its own view in memory (jobs flipping between them, deltas refused, reservations left).
    static FileLock lock_file(const std::string& path, const std::string& owner) {
        const std::string lock_path = path + ".lock";
        std::string holder;
        std::optional<FileLock> lock =
            FileLock::try_exclusive(lock_path, owner.empty() ? "pid " + std::to_string(::getpid()) : owner, &holder);
        if (!lock) {
            throw StoreInUse("database " + path + " is in use by another broker (" +
                             (holder.empty() ? "starting" : holder) + ", per " + lock_path +
                             "); one broker per SQLite file: stop it, or give this one its own db, "
                             "or share a MariaDB database (several brokers under its lease)");
        }
        return std::move(*lock);
    }

    uint64_t meta_value(const std::string& key) {
        Statement meta(db_, "SELECT value FROM meta WHERE key = ?1");
        meta.bind(1, key);
        return meta.step() ? static_cast<uint64_t>(meta.integer(0)) : 0;
    }
    void exec(const char* sql) {
        char* err = nullptr;
        if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
            const std::string why = err ? err : sqlite3_errmsg(db_);
            sqlite3_free(err);
            throw std::runtime_error(std::string("sqlite: ") + sql + ": " + why);
        }
    }
    std::string path_;
    FileLock lock_;
    sqlite3* db_ = nullptr;
};

}  // namespace

std::unique_ptr<BrokerStore> make_sqlite_store(const std::string& path, const std::string& owner) {
    return std::make_unique<SqliteStore>(path, owner);
}

}  // namespace spiderflow::broker
