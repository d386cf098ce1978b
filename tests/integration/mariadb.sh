#!/bin/bash
# A real MariaDB server for integration tests: mariadbd under DIR, on a Unix socket only (no TCP
# port to collide with), root without a password for the test's own set-up. Source it, then
#   sf_mariadb_start DIR && sf_mariadb_sql "CREATE DATABASE x"; ...; sf_mariadb_stop
# sf_mariadb_can_run says why not (exit 77 then) when the server or client is missing.

SF_MARIADB_PID=
SF_MARIADB_DIR=

sf_mariadb_can_run() {
    local b
    for b in mariadbd mariadb-install-db mariadb; do
        if ! command -v "$b" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$b" ]; then echo "skip: $b missing" >&2; return 1; fi
    done
}

sf_mariadb_socket() { echo "$SF_MARIADB_DIR/mysqld.sock"; }

sf_mariadb_sql() { mariadb --no-defaults --socket="$(sf_mariadb_socket)" -uroot -N -B -e "$1"; }

# Starts the server (installing a fresh data directory the first time) and waits for it.
sf_mariadb_start() {
    SF_MARIADB_DIR=$1
    mkdir -p "$SF_MARIADB_DIR"
    if [ ! -d "$SF_MARIADB_DIR/data/mysql" ]; then
        mariadb-install-db --no-defaults --datadir="$SF_MARIADB_DIR/data" --auth-root-authentication-method=normal \
            --skip-test-db >"$SF_MARIADB_DIR/install.log" 2>&1 || { cat "$SF_MARIADB_DIR/install.log" >&2; return 1; }
    fi
    local server
    server=$(command -v mariadbd || echo /usr/sbin/mariadbd)
    "$server" --no-defaults --datadir="$SF_MARIADB_DIR/data" --socket="$(sf_mariadb_socket)" --skip-networking \
        --user="$(id -un)" --pid-file="$SF_MARIADB_DIR/mariadbd.pid" --log-error="$SF_MARIADB_DIR/error.log" \
        --innodb-buffer-pool-size=64M >/dev/null 2>&1 &
    SF_MARIADB_PID=$!
    for _ in $(seq 100); do
        sf_mariadb_sql "SELECT 1" >/dev/null 2>&1 && return 0
        kill -0 "$SF_MARIADB_PID" 2>/dev/null || break
        sleep 0.1
    done
    echo "mariadbd did not start:" >&2
    tail -20 "$SF_MARIADB_DIR/error.log" >&2
    return 1
}

sf_mariadb_stop() {
    [ -n "$SF_MARIADB_PID" ] || return 0
    kill "$SF_MARIADB_PID" 2>/dev/null
    for _ in $(seq 100); do kill -0 "$SF_MARIADB_PID" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$SF_MARIADB_PID" 2>/dev/null
    wait "$SF_MARIADB_PID" 2>/dev/null
    SF_MARIADB_PID=
}

# sf_mariadb_broker_db PASSWORD_FILE: the brokers' database and user on the started server, the
# user's password in PASSWORD_FILE (mode 600); prints the brokers' `db =` URL.
sf_mariadb_broker_db() {
    local password=pw-$$-$RANDOM
    sf_mariadb_sql "CREATE DATABASE spiderflow; CREATE USER 'sfbroker'@'localhost' IDENTIFIED BY '$password';
                    GRANT ALL ON spiderflow.* TO 'sfbroker'@'localhost'" || return 1
    echo "$password" >"$1"
    chmod 600 "$1"
    echo "mysql://sfbroker@localhost/spiderflow?socket=$(sf_mariadb_socket)"
}
