#!/usr/bin/env bash
# The official MCP conformance suite's server scenarios, all of them (--suite all), in one run of
# the suite against `codemode-mcp --http --expose '*'` in front of our own fixture upstream
# (test/fixtures/upstreams/conformance-everything.mjs: the tools, resources, prompts and
# completions the scenarios ask for). Each scenario passes or is listed under `server:` in
# expected-failures.yml with its reason; the suite fails the run on any other failure and on a
# listed scenario that passes. The suite needs Node 22; npx brings it. Run from .ci/run after the
# build; exits non-zero on a failure.
set -euo pipefail
cd "$(dirname "$0")/../.."

SUITE='@modelcontextprotocol/conformance@0.1.16'
FIXTURE=test/fixtures/upstreams/conformance-everything.mjs

log=$(mktemp)
node bin/codemode-mcp.js --http 127.0.0.1:0 --expose '*' -- node "$FIXTURE" 2>"$log" &
server=$!
# The server exits 128 + 15 on the SIGTERM (a shutdown by signal), so wait's status is not a failure here.
trap 'kill -TERM "$server" 2>/dev/null; wait "$server" 2>/dev/null || true; rm -f "$log"' EXIT

url=''
for _ in $(seq 1 300); do
  url=$(grep -o 'http://127\.0\.0\.1:[0-9]*/mcp' "$log" | head -n 1 || true)
  [ -n "$url" ] && break
  kill -0 "$server" 2>/dev/null || { cat "$log"; echo "codemode-mcp --http exited before listening" >&2; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { cat "$log"; echo "codemode-mcp --http did not listen within 30 s" >&2; exit 1; }

echo "conformance (server): every scenario against $url"
started=$(date +%s)
status=0
npx -y -p node@22 -p "$SUITE" -c \
  "conformance server --url '$url' --suite all --expected-failures test/conformance/expected-failures.yml" \
  2> >(grep -v 'EBADENGINE\|npm warn' >&2) || status=$?
echo "conformance (server): $(( $(date +%s) - started )) s"
[ "$status" -eq 0 ] || { echo "conformance (server): failed; codemode-mcp's log:" >&2; cat "$log" >&2; }
exit "$status"
