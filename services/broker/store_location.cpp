// Which backend a `db =` location names, and the parts of a mysql:// URL.
#include <cerrno>
#include <cstdlib>
#include <stdexcept>

#include "common/util/secret_file.h"
#include "services/broker/broker_store.h"
#include "services/broker/store_backends.h"
#include "common/util/parse_number.h"

namespace spiderflow::broker {
namespace {

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

[[noreturn]] void bad_url(const std::string& url, const std::string& why) {
    throw std::runtime_error("database URL '" + url + "': " + why +
                             " (expected mysql://USER@HOST[:PORT]/DATABASE[?socket=PATH])");
}

}  // namespace

MariadbLocation parse_mariadb_url(const std::string& url) {
    const auto scheme_end = url.find("://");
    if (scheme_end == std::string::npos) bad_url(url, "no scheme");
    std::string rest = url.substr(scheme_end + 3);
    MariadbLocation loc;
    const auto query = rest.find('?');
    if (query != std::string::npos) {
        const std::string q = rest.substr(query + 1);
        rest.resize(query);
        if (!starts_with(q, "socket=") || q.size() == 7 || q.find('&') != std::string::npos) {
            bad_url(url, "the only option is socket=PATH");
        }
        loc.socket = q.substr(7);
    }
    const auto at = rest.find('@');
    if (at == std::string::npos || at == 0) bad_url(url, "no user");
    loc.user = rest.substr(0, at);
    if (loc.user.find(':') != std::string::npos) {
        bad_url(url, "a password does not belong in the URL; put it in db_password_file (mode 600)");
    }
    rest = rest.substr(at + 1);
    const auto slash = rest.find('/');
    if (slash == std::string::npos || slash + 1 == rest.size()) bad_url(url, "no database name");
    loc.database = rest.substr(slash + 1);
    if (loc.database.find('/') != std::string::npos) bad_url(url, "a database name has no '/'");
    std::string hostport = rest.substr(0, slash);
    if (!hostport.empty() && hostport.front() == '[') {  // [IPv6]:port
        const auto close = hostport.find(']');
        if (close == std::string::npos) bad_url(url, "an unclosed '[' in the host");
        loc.host = hostport.substr(1, close - 1);
        hostport = hostport.substr(close + 1);
        if (!hostport.empty() && hostport.front() != ':') bad_url(url, "text after the ']'");
    } else {
        const auto colon = hostport.find(':');
        loc.host = hostport.substr(0, colon);
        hostport = colon == std::string::npos ? "" : hostport.substr(colon);
    }
    if (loc.host.empty()) bad_url(url, "no host");
    if (!hostport.empty()) {
        const std::string p = hostport.substr(1);
        const auto port = to_int<unsigned>(p, 1, 65535);
        if (!port) bad_url(url, "a bad port");
        loc.port = *port;
    }
    return loc;
}

std::unique_ptr<BrokerStore> open_store(const std::string& location, const StoreOptions& options) {
    if (starts_with(location, "mysql://") || starts_with(location, "mariadb://")) {
        const MariadbLocation where = parse_mariadb_url(location);
#ifdef SF_HAVE_MARIADB
        const std::string password =
            options.password_file.empty() ? std::string() : read_secret_file(options.password_file, "database password");
        return make_mariadb_store(where, password);
#else
        (void)where;
        (void)options;
        throw std::runtime_error("'" + location +
                                 "': this broker was built without MariaDB (configure found no libmariadb-dev); "
                                 "use a file (SQLite) or rebuild");
#endif
    }
    if (location.find("://") != std::string::npos) {
        throw std::runtime_error("'" + location + "': unknown database scheme (a file path for SQLite, or mysql://)");
    }
    const std::string path = starts_with(location, "sqlite:") ? location.substr(7) : location;
    if (path.empty()) throw std::runtime_error("no database file given");
    if (!options.password_file.empty()) {
        // Most likely a MariaDB set-up with db= left at the file: say so rather than run alone.
        throw std::runtime_error("db_password_file is set but db '" + location +
                                 "' is a SQLite file; for MariaDB set db = mysql://USER@HOST/DATABASE");
    }
    return make_sqlite_store(path, options.owner);
}

}  // namespace spiderflow::broker
