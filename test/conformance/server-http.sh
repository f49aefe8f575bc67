#!/usr/bin/env bash
# The official MCP conformance suite's server scenarios, for both protocol revisions the server
# speaks: the scenarios each revision requires (--requirements 2025-11-25, then 2026-07-28), against
# `codemode-mcp --http --expose '*'` in front of our own fixture upstream
# (test/fixtures/upstreams/conformance-everything.mjs: the tools, resources, prompts and
# completions the scenarios ask for). Each scenario passes or is listed in
# expected-failures-server-<revision>.yml with its reason; the suite fails the run on any other
# failure and on a listed scenario that passes. The suite needs Node 22; npx brings it. Run from
# .ci/run after the build; exits non-zero on a failure.
set -euo pipefail
cd "$(dirname "$0")/../.."

SUITE='@modelcontextprotocol/conformance@0.2.0-alpha.12'
FIXTURE=test/fixtures/upstreams/conformance-everything.mjs
# One saved skill, served through the Skills extension (SEP-2640) for the sep-2640-* scenarios.
SKILLS=test/fixtures/skills

log=$(mktemp)
node bin/codemode-mcp.js --http 127.0.0.1:0 --expose '*' --skills-dir "$SKILLS" -- node "$FIXTURE" 2>"$log" &
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

status=0
for revision in 2025-11-25 2026-07-28; do
  started=$(date +%s)
  expected=test/conformance/expected-failures-server-$revision.yml
  baseline=''
  [ -f "$expected" ] && baseline="--expected-failures $expected"
  echo "conformance (server, $revision): the scenarios it requires, against $url"
  out=$(mktemp)
  suite=0
  npx -y -p node@22 -p "$SUITE" -c "conformance server --url '$url' --requirements $revision $baseline" \
    >"$out" 2> >(grep -v 'EBADENGINE\|npm warn' >&2) || suite=$?
  # The summary: each scenario, the totals, and the baseline's verdict.
  grep -E '^[✓✗] |^Total: |^  [~✓✗] |^(Baseline|Unexpected|Stale)' "$out" | sed 's/\x1b\[[0-9;]*m//g' || true
  rm -f "$out"
  [ "$suite" -eq 0 ] || status=1
  echo "conformance (server, $revision): $(( $(date +%s) - started )) s"
done
# The Skills extension's scenarios (SEP-2640), which no requirement set lists yet: each must pass.
for scenario in sep-2640-skills-enumeration sep-2640-skills-manifest sep-2640-skills-directory; do
  out=$(mktemp)
  suite=0
  npx -y -p node@22 -p "$SUITE" -c "conformance server --url '$url' --scenario $scenario" \
    >"$out" 2> >(grep -v 'EBADENGINE\|npm warn' >&2) || suite=$?
  echo "conformance (server, $scenario): $(sed 's/\x1b\[[0-9;]*m//g' "$out" | grep -E '^Passed: ' || echo 'no summary')"
  sed 's/\x1b\[[0-9;]*m//g' "$out" | grep -E 'FAILURE|WARNING' || true
  rm -f "$out"
  [ "$suite" -eq 0 ] || status=1
done
[ "$status" -eq 0 ] || { echo "conformance (server): failed; codemode-mcp's log:" >&2; cat "$log" >&2; }
exit "$status"
