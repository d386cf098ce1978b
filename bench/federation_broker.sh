# Sourced by the benchmarks that run spiderflow-brokerd for a generated federation
# (bench/broker_bench.sh, bench/sbatch_federation_bench.sh): its tokens, its config and its start,
# one way, so their broker figures are of the same broker.
# Needs brokerd_conf (tests/integration/checks.sh) and curl.

# write_federation_tokens BROKERD TOPOLOGY DIR: DIR/tokens.d/NAME.token for every cluster of
# TOPOLOGY and DIR/tokens.d/reader.token (random, readable by their owner only, or the client
# refuses them), and DIR/tokens, the broker's table of their hashes (BROKERD --hash-token), so
# bench/broker_bench can publish as every cluster.
write_federation_tokens() {
    local brokerd=$1 topology=$2 dir=$3 name token role
    (
        umask 077
        mkdir -p "$dir/tokens.d" || exit 1
        for name in $(python3 -c 'import json,sys; print(*[c["name"] for c in json.load(open(sys.argv[1]))["clusters"]])' \
            "$topology") reader; do
            token=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
            echo "$token" >"$dir/tokens.d/$name.token"
            role=cluster; [ "$name" = reader ] && role=reader
            echo "$role $name $(echo "$token" | "$brokerd" --hash-token)"
        done >"$dir/tokens"
    )
}

# bench_brokerd_conf DIR PORT TOPOLOGY: the shipped defaults (contrib/federation/brokerd.conf:
# 8 threads, SQLite) on loopback with the store and tokens under DIR, but rate_limit: the bench's
# 100 reads a second share one reader token, where a site gives each tool its own.
bench_brokerd_conf() {
    brokerd_conf "$1" "$2" "$3"
    printf 'max_body = 16777216\nrate_limit = 1000\nthreads = 8\n'
}

# bench_start_broker BROKERD CONF LOG: starts a broker, waits for its /healthz; prints its PID.
bench_start_broker() {
    "$1" --config "$2" >"$3" 2>&1 &
    local pid=$! url
    url=http://127.0.0.1:$(sed -n 's/^port = //p' "$2")
    for _ in $(seq 100); do curl -sf "$url/healthz" >/dev/null && break; sleep 0.1; done
    curl -sf "$url/healthz" >/dev/null || { echo "brokerd did not start:" >&2; cat "$3" >&2; return 1; }
    echo "$pid"
}
