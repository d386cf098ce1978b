#!/bin/sh
# Golden-file tests of the command-line tools.
#
# Each line of cases.txt is "NAME<TAB>COMMAND ARGS..." (words split on spaces, no quoting;
# '#' lines and blank lines are skipped). The command runs in the source tree, with the first
# word taken from the build tree when a program of that name was built there; its standard
# output, followed by standard error and the exit status when either is not clean, must equal
# tests/golden/NAME.txt. To accept new output:  SF_UPDATE_GOLDEN=1 make check TESTS=tests/golden/run_golden.sh
# (or run this script directly with SF_SRCDIR and SF_BUILDDIR set).
#
# The federation commands meet a live broker: before the first case that names @BROKER@ or
# @TOKENS@ this script starts spiderflow-brokerd from the build tree on a free loopback port
# (aws-4 topology, a SQLite store in its temporary directory), submits one cross-site job to it
# (tests/golden/broker/xjob.json, as cluster oregon, with curl), and writes token files: in
# @TOKENS@, reader.token (reader "tools"), oregon.token and ohio.token (those clusters),
# wrong.token (a token the broker does not hold) and open.token (a reader's, readable by
# others). @BROKER@ is the broker's URL. In those cases' output the URL and the directory are
# written back as @BROKER@ and @TOKENS@, and every local date and time as @TIME@, so the golden
# files depend on neither the port nor the clock. The broker is stopped by PID at the end.
set -u
set -f  # case commands are split on spaces but never globbed

here=$(cd "$(dirname "$0")" && pwd)
srcdir=${SF_SRCDIR:-$(cd "$here/../.." && pwd)}
builddir=${SF_BUILDDIR:-$(pwd)}
cases="$srcdir/tests/golden/cases.txt"
tab=$(printf '\t')
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sf-golden.XXXXXX") || exit 99
broker_pid=
stop_broker() {
    [ -n "$broker_pid" ] && kill "$broker_pid" 2>/dev/null && wait "$broker_pid" 2>/dev/null
    broker_pid=
}
trap 'stop_broker; rm -rf "$tmp"' EXIT
trap 'exit 99' INT TERM
# The cases are the programs' own defaults: a site config on this host (an installed
# /etc/slurm/spiderflow.conf) must not reach them.
SPIDERFLOW_CONF=$tmp/no-site.conf
export SPIDERFLOW_CONF

broker_url=
tokens=$tmp/tokens
live=           # "" not tried yet, "up" or the reason it could not start
# start_live: the broker and the token files described above; sets live.
start_live() {
    brokerd=$builddir/spiderflow-brokerd
    [ -x "$brokerd" ] || { live="spiderflow-brokerd not built in $builddir"; return; }
    command -v curl >/dev/null 2>&1 || { live="curl is not installed (the broker's job is submitted with it)"; return; }
    mkdir -p "$tokens"
    for who in reader oregon ohio wrong open; do
        echo "tok-$who" >"$tokens/$who.token"
        chmod 600 "$tokens/$who.token"
    done
    chmod 644 "$tokens/open.token"
    {
        echo "reader tools $(echo tok-reader | "$brokerd" --hash-token)"
        echo "reader tools-open $(echo tok-open | "$brokerd" --hash-token)"
        echo "cluster oregon $(echo tok-oregon | "$brokerd" --hash-token)"
        echo "cluster ohio $(echo tok-ohio | "$brokerd" --hash-token)"
    } >"$tmp/broker-tokens"
    # A port below the usual ephemeral range; another one if something holds it.
    tries=0
    while [ "$tries" -lt 10 ]; do
        tries=$((tries + 1))
        port=$((20000 + $(od -An -N2 -tu2 /dev/urandom) % 12000))
        cat >"$tmp/brokerd.conf" <<CONF
listen = 127.0.0.1
port = $port
db = $tmp/broker.db
topology = $srcdir/contrib/topologies/aws-4.json
tokens = $tmp/broker-tokens
rate_limit = 10000
CONF
        "$brokerd" --config "$tmp/brokerd.conf" >"$tmp/brokerd.log" 2>&1 &
        broker_pid=$!
        waited=0
        while [ "$waited" -lt 100 ] && kill -0 "$broker_pid" 2>/dev/null && ! grep -q "listening on" "$tmp/brokerd.log"; do
            sleep 0.1
            waited=$((waited + 1))
        done
        if grep -q "listening on" "$tmp/brokerd.log"; then
            broker_url=http://127.0.0.1:$port
            break
        fi
        stop_broker
        grep -q "cannot listen" "$tmp/brokerd.log" || break
    done
    if [ -z "$broker_url" ]; then
        live="spiderflow-brokerd did not start: $(tail -1 "$tmp/brokerd.log")"
        return
    fi
    if ! curl -sf -o /dev/null -X POST -H "Authorization: Bearer tok-oregon" \
            --data-binary @"$srcdir/tests/golden/broker/xjob.json" "$broker_url/v1/xjobs"; then
        live="the broker refused tests/golden/broker/xjob.json"
        return
    fi
    live=up
}

[ -r "$cases" ] || { echo "spiderflow: golden: no $cases" >&2; exit 99; }

failed=0
ran=0
while IFS="$tab" read -r name cmd || [ -n "$name" ]; do
    case "$name" in ''|'#'*) continue ;; esac
    if [ -z "$cmd" ]; then
        echo "spiderflow: golden: case '$name' has no command (NAME<TAB>COMMAND)" >&2
        failed=1
        continue
    fi
    uses_live=0
    case "$cmd" in *@BROKER@*|*@TOKENS@*) uses_live=1 ;; esac
    if [ "$uses_live" = 1 ]; then
        [ -n "$live" ] || start_live
        if [ "$live" != up ]; then
            echo "FAIL $name: $live"
            failed=1
            continue
        fi
        cmd=$(printf '%s\n' "$cmd" | sed -e "s|@BROKER@|$broker_url|g" -e "s|@TOKENS@|$tokens|g")
    fi
    set -- $cmd
    prog=$1
    shift
    if [ -x "$builddir/$prog" ]; then
        prog="$builddir/$prog"
    elif ! command -v "$prog" >/dev/null 2>&1; then
        echo "FAIL $name: program '$prog' not built in $builddir nor on PATH"
        failed=1
        continue
    fi
    (cd "$srcdir" && "$prog" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null)
    rc=$?
    if [ -s "$tmp/err" ] || [ "$rc" -ne 0 ]; then
        { echo "--- stderr ---"; cat "$tmp/err"; echo "--- exit $rc ---"; } >>"$tmp/out"
    fi
    if [ "$uses_live" = 1 ]; then
        sed -e "s|$broker_url|@BROKER@|g" -e "s|$tokens|@TOKENS@|g" \
            -e 's/[0-9]\{4\}-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9][0-9]/@TIME@/g' "$tmp/out" >"$tmp/out.live"
        mv "$tmp/out.live" "$tmp/out"
    fi
    want="$srcdir/tests/golden/$name.txt"
    ran=$((ran + 1))
    if [ "${SF_UPDATE_GOLDEN:-0}" = 1 ]; then
        cp "$tmp/out" "$want" && echo "updated $want"
    elif [ ! -f "$want" ]; then
        echo "FAIL $name: no golden file $want (run with SF_UPDATE_GOLDEN=1 to create it)"
        failed=1
    elif diff -u "$want" "$tmp/out" >"$tmp/diff"; then
        echo "PASS $name"
    else
        echo "FAIL $name: output differs from $want:"
        cat "$tmp/diff"
        failed=1
    fi
done <"$cases"

echo "golden: $ran case(s) run"
[ "$ran" -gt 0 ] || exit 99
exit $failed
