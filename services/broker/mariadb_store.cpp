// The MariaDB store, for sites that already run a replicated MariaDB (for slurmdbd) and want
// several brokers on it: InnoDB tables, one transaction per write (durable on commit with
// MariaDB's default innodb_flush_log_at_trx_commit=1), prepared statements for every value,
// and the lease row that says which broker decides. Lease times use the database's clock.
//
// A connection that fails is dropped and made again on the next call, so a database restart
// costs the calls made during it, not the broker.
#include <mysql.h>

#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "services/broker/broker_store.h"
#include "services/broker/store_backends.h"
#include "common/util/parse_number.h"

namespace spiderflow::broker {
namespace {

using Value = std::variant<int64_t, std::string>;
using Row = std::vector<std::string>;

// An integer column as the C API hands it (text); one that is not is a broken database.
int64_t column_int(const std::string& text, const std::string& column) {
    return parse_int<int64_t>(text, 0, std::numeric_limits<int64_t>::max(), "mariadb", 0, column);
}

// Milliseconds since the epoch by the database's clock, so brokers' clocks need not agree.
#define SF_DB_NOW_MS "CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)"

[[noreturn]] void fail(MYSQL* db, const std::string& what) {
    throw std::runtime_error("mariadb " + what + ": " + mysql_error(db));
}

// One prepared statement: every value travels as a bound parameter, never in the SQL text.
class Statement {
public:
    Statement(MYSQL* db, const char* sql) : db_(db), stmt_(mysql_stmt_init(db)) {
        if (stmt_ == nullptr) fail(db, "statement");
        if (mysql_stmt_prepare(stmt_, sql, static_cast<unsigned long>(std::char_traits<char>::length(sql))) != 0) {
            failed("prepare");
        }
    }
    ~Statement() { mysql_stmt_close(stmt_); }
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;

    // Runs with `params`; returns the rows changed (or, with CLIENT_FOUND_ROWS, matched).
    uint64_t execute(const std::vector<Value>& params) {
        std::vector<MYSQL_BIND> bind(params.size());
        std::vector<unsigned long> lengths(params.size());
        for (size_t i = 0; i < params.size(); ++i) {
            if (const auto* n = std::get_if<int64_t>(&params[i])) {
                bind[i].buffer_type = MYSQL_TYPE_LONGLONG;
                bind[i].buffer = const_cast<int64_t*>(n);
            } else {
                const std::string& s = std::get<std::string>(params[i]);
                lengths[i] = static_cast<unsigned long>(s.size());
                bind[i].buffer_type = MYSQL_TYPE_STRING;
                bind[i].buffer = const_cast<char*>(s.data());
                bind[i].buffer_length = lengths[i];
                bind[i].length = &lengths[i];
            }
        }
        if (!params.empty() && mysql_stmt_bind_param(stmt_, bind.data()) != 0) failed("bind");
        if (mysql_stmt_execute(stmt_) != 0) failed("execute");
        return mysql_stmt_affected_rows(stmt_);
    }

    // Every row of the last execute, each column as text (numbers too), whatever its length.
    std::vector<Row> rows() {
        MYSQL_RES* meta = mysql_stmt_result_metadata(stmt_);
        if (meta == nullptr) return {};
        const unsigned columns = mysql_num_fields(meta);
        mysql_free_result(meta);
        std::vector<MYSQL_BIND> bind(columns);
        std::vector<unsigned long> lengths(columns);
        std::vector<my_bool> nulls(columns);
        for (unsigned c = 0; c < columns; ++c) {
            bind[c].buffer_type = MYSQL_TYPE_STRING;
            bind[c].length = &lengths[c];
            bind[c].is_null = &nulls[c];
        }
        if (mysql_stmt_bind_result(stmt_, bind.data()) != 0) failed("bind result");
        if (mysql_stmt_store_result(stmt_) != 0) failed("store result");
        std::vector<Row> out;
        for (;;) {
            const int rc = mysql_stmt_fetch(stmt_);
            if (rc == MYSQL_NO_DATA) break;
            if (rc == 1) failed("fetch");
            Row row(columns);
            for (unsigned c = 0; c < columns; ++c) {
                if (nulls[c] || lengths[c] == 0) continue;
                row[c].resize(lengths[c]);
                MYSQL_BIND one{};
                unsigned long got = 0;
                one.buffer_type = MYSQL_TYPE_STRING;
                one.buffer = row[c].data();
                one.buffer_length = lengths[c];
                one.length = &got;
                if (mysql_stmt_fetch_column(stmt_, &one, c, 0) != 0) failed("fetch column");
            }
            out.push_back(std::move(row));
        }
        mysql_stmt_free_result(stmt_);
        return out;
    }

private:
    [[noreturn]] void failed(const char* what) const {
        throw std::runtime_error(std::string("mariadb ") + what + ": " + mysql_stmt_error(stmt_));
    }
    MYSQL* db_;
    MYSQL_STMT* stmt_;
};

class MariadbStore : public BrokerStore {
public:
    MariadbStore(MariadbLocation where, std::string password)
        : where_(std::move(where)), password_(std::move(password)) {
        static std::once_flag library;
        std::call_once(library, [] { mysql_library_init(0, nullptr, nullptr); });
        connection();  // fail at start, with the reason, rather than on the first write
    }
    ~MariadbStore() override { disconnect(); }

    std::vector<StoredPart> load_parts(uint64_t since, uint64_t* epoch) override {
        return guarded([&] {
            MYSQL* db = connection();
            // One snapshot (InnoDB, repeatable read): the epoch and the parts agree.
            query(db, "START TRANSACTION WITH CONSISTENT SNAPSHOT");
            try {
                std::vector<StoredPart> out;
                *epoch = read_epoch();
                Statement parts(db, "SELECT cluster, snapshot, updated_at, epoch FROM parts WHERE epoch > ? OR ? = 0 "
                                    "ORDER BY cluster");
                parts.execute({static_cast<int64_t>(since), static_cast<int64_t>(since)});
                for (const Row& r : parts.rows()) {
                    out.push_back({r[0], r[1], column_int(r[2], "parts.updated_at"),
                                   static_cast<uint64_t>(column_int(r[3], "parts.epoch"))});
                }
                query(db, "COMMIT");
                return out;
            } catch (...) {
                mysql_query(db, "ROLLBACK");
                throw;
            }
        });
    }

    uint64_t stored_epoch() override {
        return guarded([&] { return read_epoch(); });
    }

    void save_parts(const std::vector<StoredPart>& parts, uint64_t epoch, const std::string& holder) override {
        fenced(holder, [&](MYSQL* db) {
            for (const StoredPart& part : parts) {
                Statement put(db, "INSERT INTO parts (cluster, snapshot, updated_at, epoch) VALUES (?, ?, ?, ?) "
                                  "ON DUPLICATE KEY UPDATE snapshot = VALUES(snapshot), updated_at = VALUES(updated_at), "
                                  "epoch = VALUES(epoch)");
                put.execute({part.cluster, part.snapshot_json, part.updated_at, static_cast<int64_t>(part.epoch)});
            }
            Statement meta(db, "INSERT INTO meta (name, value) VALUES ('epoch', ?) "
                               "ON DUPLICATE KEY UPDATE value = VALUES(value)");
            meta.execute({static_cast<int64_t>(epoch)});
        });
    }

    std::vector<StoredXJob> load_xjobs() override {
        return guarded([&] {
            std::vector<StoredXJob> out;
            Statement jobs(connection(), "SELECT id, seq, doc FROM xjobs ORDER BY seq");
            jobs.execute({});
            for (const Row& r : jobs.rows()) out.push_back({r[0], static_cast<uint64_t>(column_int(r[1], "xjobs.seq")), r[2]});
            return out;
        });
    }

    void save_xjobs(const std::vector<StoredXJob>& jobs, const std::string& holder) override {
        fenced(holder, [&](MYSQL* db) {
            for (const StoredXJob& j : jobs) {
                if (j.doc.empty()) {
                    Statement del(db, "DELETE FROM xjobs WHERE id = ?");
                    del.execute({j.id});
                    continue;
                }
                Statement put(db, "INSERT INTO xjobs (id, seq, doc) VALUES (?, ?, ?) "
                                  "ON DUPLICATE KEY UPDATE seq = VALUES(seq), doc = VALUES(doc)");
                put.execute({j.id, static_cast<int64_t>(j.seq), j.doc});
            }
            query(db, "INSERT INTO meta (name, value) VALUES ('xjobs', 1) ON DUPLICATE KEY UPDATE value = value + 1");
        });
    }

    uint64_t stored_xjobs_version() override {
        return guarded([&] { return read_meta("xjobs"); });
    }

    bool shared() const override { return true; }

    bool hold_lease(const std::string& holder, int ttl_s, std::string* current) override {
        return guarded([&] {
            MYSQL* db = connection();
            Statement take(db, "UPDATE lease SET holder = ?, expires_ms = " SF_DB_NOW_MS " + ? "
                               "WHERE name = 'active' AND (holder = ? OR expires_ms <= " SF_DB_NOW_MS ")");
            if (take.execute({holder, static_cast<int64_t>(ttl_s) * 1000, holder}) == 1) return true;
            if (current != nullptr) {
                Statement who(db, "SELECT holder FROM lease WHERE name = 'active'");
                who.execute({});
                const std::vector<Row> rows = who.rows();
                *current = rows.empty() ? std::string() : rows[0][0];
            }
            return false;
        });
    }

    void release_lease(const std::string& holder) override {
        guarded([&] {
            Statement give(connection(), "UPDATE lease SET expires_ms = 0 WHERE name = 'active' AND holder = ?");
            give.execute({holder});
            return 0;
        });
    }

    std::string describe() const override {
        return "mysql://" + where_.user + "@" + where_.host + ":" + std::to_string(where_.port) + "/" + where_.database;
    }

private:
    // Runs `body` in one transaction that first locks the lease row and checks `holder` still
    // holds it: a standby cannot take the lease over between the check and the commit.
    template <class F>
    void fenced(const std::string& holder, F body) {
        guarded([&] {
            MYSQL* db = connection();
            query(db, "START TRANSACTION");
            try {
                Statement lease(db, "SELECT holder, holder = ? AND expires_ms > " SF_DB_NOW_MS
                                    " FROM lease WHERE name = 'active' FOR UPDATE");
                lease.execute({holder});
                const std::vector<Row> rows = lease.rows();
                if (rows.empty() || rows[0][1] != "1") {
                    query(db, "ROLLBACK");
                    throw LeaseLost(rows.empty() ? std::string() : rows[0][0]);
                }
                body(db);
                query(db, "COMMIT");
            } catch (const LeaseLost&) {
                throw;
            } catch (...) {
                mysql_query(db, "ROLLBACK");
                throw;
            }
            return 0;
        });
    }

    // Runs `body`; on a failure other than a lost lease the connection is dropped. A connection
    // kept from an earlier call may have died with a database restart since: then `body` runs
    // once more on a fresh one. Every body is safe to repeat: reads, the lease's conditional
    // update, and the upserts of absolute values (a commit whose answer was lost writes the
    // same rows again; the xjobs version only moves once more).
    template <class F>
    std::invoke_result_t<F> guarded(F body) {
        for (bool retried = false;; retried = true) {
            const bool reused = db_ != nullptr;
            try {
                return body();
            } catch (const LeaseLost&) {
                throw;
            } catch (...) {
                disconnect();
                if (!reused || retried) throw;
            }
        }
    }

    MYSQL* connection() {
        if (db_ != nullptr) return db_;
        MYSQL* db = mysql_init(nullptr);
        if (db == nullptr) throw std::runtime_error("mariadb: out of memory");
        const unsigned connect_timeout = 5, io_timeout = 30;
        mysql_options(db, MYSQL_OPT_CONNECT_TIMEOUT, &connect_timeout);
        mysql_options(db, MYSQL_OPT_READ_TIMEOUT, &io_timeout);
        mysql_options(db, MYSQL_OPT_WRITE_TIMEOUT, &io_timeout);
        mysql_options(db, MYSQL_SET_CHARSET_NAME, "utf8mb4");
        // Matched rows, not changed rows: a lease renewed within the same millisecond counts.
        if (mysql_real_connect(db, where_.host.c_str(), where_.user.c_str(),
                               password_.empty() ? nullptr : password_.c_str(), where_.database.c_str(), where_.port,
                               where_.socket.empty() ? nullptr : where_.socket.c_str(), CLIENT_FOUND_ROWS) == nullptr) {
            const std::string why = mysql_error(db);
            mysql_close(db);
            throw std::runtime_error("cannot connect to " + describe() + ": " + why);
        }
        db_ = db;
        try {
            query(db, "CREATE TABLE IF NOT EXISTS parts (cluster VARCHAR(190) PRIMARY KEY, snapshot LONGTEXT NOT NULL, "
                      "updated_at BIGINT NOT NULL, epoch BIGINT NOT NULL DEFAULT 0) ENGINE=InnoDB");
            query(db, "ALTER TABLE parts ADD COLUMN IF NOT EXISTS epoch BIGINT NOT NULL DEFAULT 0");  // a store from before
            query(db, "CREATE TABLE IF NOT EXISTS meta (name VARCHAR(64) PRIMARY KEY, value BIGINT NOT NULL) "
                      "ENGINE=InnoDB");
            query(db, "CREATE TABLE IF NOT EXISTS lease (name VARCHAR(64) PRIMARY KEY, holder VARCHAR(255) NOT NULL, "
                      "expires_ms BIGINT NOT NULL) ENGINE=InnoDB");
            query(db, "CREATE TABLE IF NOT EXISTS xjobs (id VARCHAR(190) PRIMARY KEY, seq BIGINT NOT NULL, "
                      "doc LONGTEXT NOT NULL) ENGINE=InnoDB");
            query(db, "INSERT IGNORE INTO lease (name, holder, expires_ms) VALUES ('active', '', 0)");
        } catch (...) {
            disconnect();
            throw;
        }
        return db_;
    }

    void disconnect() {
        if (db_ != nullptr) mysql_close(db_);
        db_ = nullptr;
    }

    uint64_t read_epoch() { return read_meta("epoch"); }

    uint64_t read_meta(const std::string& name) {
        Statement meta(connection(), "SELECT value FROM meta WHERE name = ?");
        meta.execute({name});
        const std::vector<Row> rows = meta.rows();
        return rows.empty() ? 0 : static_cast<uint64_t>(column_int(rows[0][0], "meta." + name));
    }

    // Fixed SQL with no values in it (transaction control, schema).
    static void query(MYSQL* db, const char* sql) {
        if (mysql_query(db, sql) != 0) fail(db, sql);
    }

    MariadbLocation where_;
    std::string password_;
    MYSQL* db_ = nullptr;
};

}  // namespace

std::unique_ptr<BrokerStore> make_mariadb_store(const MariadbLocation& where, const std::string& password) {
    return std::make_unique<MariadbStore>(where, password);
}

}  // namespace spiderflow::broker
