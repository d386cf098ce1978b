#!/bin/bash
# Integration: the broker's status page in a real browser. A broker on loopback (one_broker.sh)
# holds a cross-site job posted and driven to running with curl standing in for the agents (as
# test_broker_xjobs.sh does), carrying a plan `spiderflow plan` made, and a second job cancelled
# with a hostile reason. Headless Chromium signs in through the page's own form (the token in a
# form post, never in a URL) and its DOM must show the clusters, the links, the job with its parts,
# ranks, state, history and plan picture, and the hostile reason as text, not markup. The page's
# screenshot and DOM are kept under the build tree's tests/integration/status-page/ as the test's
# artifacts. Exits 77 without chromium.
set -u
CHROMIUM=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$CHROMIUM" ] || { echo "SKIP: chromium not installed (contrib/scripts/install-deps.sh)"; exit 77; }
. "$(dirname "$0")/one_broker.sh" status
one_broker_tokens oregon ohio
ART=$SF_BUILDDIR/tests/integration/status-page
rm -rf "$ART" && mkdir -p "$ART"
code() {  # METHOD PATH TOKEN [BODY]: the HTTP status; headers in $T/head, body in $T/body
    local args=(-s -D "$T/head" -o "$T/body" -w '%{http_code}' -X "$1")
    [ -n "$3" ] && args+=(-H "Authorization: Bearer $3")
    [ -n "${4:-}" ] && args+=(--data-binary "$4")
    curl "${args[@]}" "$URL$2"
}
report() { code POST "/v1/clusters/$1/reports" "tok-$1" "{\"reports\": [$2]}" >/dev/null; }

# The plan the job carries, as job_submit would put it in the job (plan_transport.h: z1: + base64
# of zlib), drawn by the page as `spiderflow plan --format svg` draws it.
"$SF_BUILDDIR/spiderflow" plan --topology "$TOPO" --model llama3-8b --global-batch 512 --seq-len 4096 --gpus 144 \
    --allow oregon,ohio --format json >"$T/plan.json" 2>"$T/plan.err" || { cat "$T/plan.err"; exit 1; }
# With the plan's degrees, as job_submit sets them beside it (the page's run line shows them).
STEP_ENV=$(python3 -c "
import base64, json, sys, zlib
text = open(sys.argv[1], 'rb').read()
plan = json.loads(text)
env = {'SPIDERFLOW_PLAN_DATA': 'z1:' + base64.b64encode(zlib.compress(text, 9)).decode()}
env.update({'SPIDERFLOW_' + k.upper(): str(plan['degrees'][k]) for k in ('tp', 'pp', 'dp')})
print(json.dumps(env))" "$T/plan.json")
JOB='{"id": "oregon:101", "user": "alice", "account": "ml", "time_limit_s": 3600, "script": "#!/bin/sh\nsrun train.sh\n",
      "step_env": '$STEP_ENV',
      "parts": [{"cluster": "oregon", "nodes": 16, "gpus_per_node": 8, "ranks": 128},
                {"cluster": "ohio", "nodes": 2, "gpus_per_node": 8, "ranks": 16}]}'
HOSTILE='<script>document.title=\"pwned\"</script><img src=x onerror=alert(1)>'

start || exit 1
expect "the job is accepted" test "$(code POST /v1/xjobs tok-oregon "$JOB")" = 201
NOW=$(date +%s)
report oregon "{\"report\": \"offer\", \"xjob\": \"oregon:101\", \"part\": 0, \"attempt\": 1, \"earliest_start\": $NOW}"
report ohio "{\"report\": \"offer\", \"xjob\": \"oregon:101\", \"part\": 1, \"attempt\": 1, \"earliest_start\": $NOW}"
report oregon '{"report": "reserved", "xjob": "oregon:101", "part": 0, "attempt": 1, "reservation": "spiderflow-oregon_101-a1-p0", "node_list": ["or-gpu001", "or-gpu002"]}'
report ohio '{"report": "reserved", "xjob": "oregon:101", "part": 1, "attempt": 1, "reservation": "spiderflow-oregon_101-a1-p1", "node_list": ["oh-gpu001", "oh-gpu002"]}'
report oregon '{"report": "running", "xjob": "oregon:101", "part": 0, "attempt": 1, "job_id": 4242}'
report ohio '{"report": "running", "xjob": "oregon:101", "part": 1, "attempt": 1, "job_id": 77}'
code GET /v1/xjobs/oregon:101 tok-tools >/dev/null
expect "... and runs on both clusters" grep -q '"state":"running"' "$T/body"
code POST /v1/xjobs tok-oregon "${JOB//oregon:101/oregon:102}" >/dev/null
expect "a second job is cancelled with a hostile reason" test \
    "$(code POST /v1/xjobs/oregon:102/cancel tok-ohio "{\"reason\": \"$HOSTILE\"}")" = 200

# --- the token: header or the form's cookie, never the URL -------------------------------------
expect "without a token: 401 and the sign-in form" bash -c "[ $(code GET /status '') = 401 ] && grep -q 'action=\"/status/login\"' '$T/body'"
expect "a token in the query is not read (it would land in logs and history): 401" test "$(code GET '/status?token=tok-tools' '')" = 401
expect "a reader's bearer token: 200, the page" bash -c "[ $(code GET /status tok-tools) = 200 ] && grep -q 'data-xjob=\"oregon:101\"' '$T/body'"
expect "... served with a policy that runs no script" grep -qi "^Content-Security-Policy: default-src 'none'" "$T/head"
expect "signing in with a cluster's token (it can write) is refused: 403" test \
    "$(curl -s -o /dev/null -w '%{http_code}' --data-urlencode token=tok-oregon "$URL/status/login")" = 403
curl -s -D "$T/login.head" -o /dev/null --data-urlencode token=tok-tools "$URL/status/login"
expect "a reader signs in: 303 to /status, an HttpOnly cookie for /status alone" \
    grep -q '^Set-Cookie: spiderflow_status=tok-tools; Path=/status; Max-Age=28800; HttpOnly; SameSite=Lax' "$T/login.head"
expect "... Secure behind a TLS proxy that says so" bash -c \
    "curl -s -D - -o /dev/null -H 'X-Forwarded-Proto: https' --data-urlencode token=tok-tools '$URL/status/login' | grep -q '^Set-Cookie: .*; Secure'"
expect "signing out clears the cookie" bash -c \
    "curl -s -D - -o /dev/null -d '' '$URL/status/logout' | grep -q '^Set-Cookie: spiderflow_status=; Path=/status; Max-Age=0'"
expect "the cookie opens the page" test "$(curl -s -o /dev/null -w '%{http_code}' -b 'spiderflow_status=tok-tools' "$URL/status")" = 200
expect "the cookie opens no API route" test "$(curl -s -o /dev/null -w '%{http_code}' -b 'spiderflow_status=tok-tools' "$URL/v1/xjobs")" = 401

# --- headless Chromium signs in through the form, as a person would ----------------------------
cat >"$T/sign-in.html" <<HTML
<!DOCTYPE html><html><body><form method="post" action="$URL/status/login"><input name="token" value="tok-tools"></form>
<script>document.forms[0].submit()</script></body></html>
HTML
browse() {  # chromium's flags for one headless look; the page's own answer is what it shows
    timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$T/chromium" \
        --virtual-time-budget=10000 --window-size=1280,2400 "$@" "file://$T/sign-in.html" 2>>"$T/chromium.log"
}
browse --dump-dom >"$ART/status.dom.html"
DOM=$ART/status.dom.html
expect "Chromium shows the page after signing in" grep -q '<h1>SpiderFlow federation</h1>' "$DOM"
expect "... the clusters with their GPUs" grep -q '<td>oregon</td><td class="num">16</td><td class="num">128</td>' "$DOM"
expect "... the links, declared (not measured yet)" grep -q '<td>oregon-ohio</td><td class="num">1.10</td>' "$DOM"
expect "... the job, running" grep -q '<h3>oregon:101 <span class="state running">running</span>' "$DOM"
expect "... its parts with their ranks and nodes" bash -c \
    "grep -q '<td>ohio</td><td>2 × 8</td><td>128–143</td><td>running</td><td>77</td>' '$DOM' && grep -q 'oh-gpu001, oh-gpu002' '$DOM'"
expect "... its history" grep -q 'running: every part running' "$DOM"
expect "... its plan picture" grep -q '<img class="plan" alt="the plan of oregon:101" src="data:image/svg+xml;base64,' "$DOM"
expect "the hostile reason is text on the page" grep -q 'cancelled: &lt;script&gt;document.title="pwned"&lt;/script&gt;&lt;img src=x' "$DOM"
expect "... not markup: no script ran, no element was injected" bash -c \
    "! grep -q '<title>pwned' '$DOM' && ! grep -q '<img src=\"x\"' '$DOM' && [ \$(grep -c '<script' '$DOM') = 0 ]"
browse --screenshot="$ART/status.png" >/dev/null
expect "a screenshot is kept ($ART/status.png)" python3 -c \
    "import sys; b=open(sys.argv[1],'rb').read(); sys.exit(0 if b[:8]==b'\x89PNG\r\n\x1a\n' and len(b)>20000 else 1)" "$ART/status.png"

if [ "$FAILS" -ne 0 ]; then
    echo "$FAILS check(s) failed; the DOM is in $DOM" >&2
    tail -n 20 "$T/brokerd.log" "$T/chromium.log" >&2
    exit 1
fi
exit 0
