#!/usr/bin/env bash
# The official MCP conformance suite's server scenarios, for both protocol revisions the server
# speaks: the scenarios each revision requires (--requirements 2025-11-25, then 2026-07-28), against
# `codemode-mcp --http --expose '*'` in front of our own fixture upstream
# (test/fixtures/upstreams/conformance-everything.mjs: the tools, resources, prompts and
# completions the scenarios ask for), which speaks 2025; then the 2026-07-28 set's
# input-required-result-* scenarios and server-stateless once more, in front of the same fixture
# speaking 2026-07-28 (--current-revision), whose own input_required rounds pass through. Each
# scenario passes or is listed in expected-failures-server-<run>.yml with its reason; the suite
# fails the run on any other failure and on a listed scenario that passes. The suite needs Node 22; npx brings it. Run from
# .ci/run after the build; exits non-zero on a failure.
set -euo pipefail
cd "$(dirname "$0")/../.."

SUITE='@modelcontextprotocol/conformance@0.2.0-alpha.12'
FIXTURE=test/fixtures/upstreams/conformance-everything.mjs
# One saved skill, served through the Skills extension (SEP-2640) for the sep-2640-* scenarios.
SKILLS=test/fixtures/skills

# Starts codemode-mcp --http in front of the fixture (with its extra arguments) and sets $url.
logs=()
servers=()
start_server() {
  local log
  log=$(mktemp)
  logs+=("$log")
  node bin/codemode-mcp.js --http 127.0.0.1:0 --expose '*' --skills-dir "$SKILLS" -- node "$FIXTURE" "$@" 2>"$log" &
  local server=$!
  servers+=("$server")
  url=''
  for _ in $(seq 1 300); do
    url=$(grep -o 'http://127\.0\.0\.1:[0-9]*/mcp' "$log" | head -n 1 || true)
    [ -n "$url" ] && return 0
    kill -0 "$server" 2>/dev/null || { cat "$log"; echo "codemode-mcp --http exited before listening" >&2; exit 1; }
    sleep 0.1
  done
  cat "$log"
  echo "codemode-mcp --http did not listen within 30 s" >&2
  exit 1
}
# The server exits 128 + 15 on the SIGTERM (a shutdown by signal), so wait's status is not a failure here.
stop_servers() {
  for server in "${servers[@]}"; do kill -TERM "$server" 2>/dev/null || true; done
  for server in "${servers[@]}"; do wait "$server" 2>/dev/null || true; done
  rm -f "${logs[@]}"
}
trap stop_servers EXIT

start_server
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

# The 2026-07-28 set's scenarios of input the server asks for (SEP-2322) and of statelessness,
# again, against an upstream that speaks 2026-07-28 itself (the fixture's --current-revision):
# its input_required rounds pass through codemode-mcp unchanged. The scenarios are the set's
# input-required-result-* (the suite's requirements/2026-07-28.yaml) and server-stateless; listed
# failures: expected-failures-server-2026-07-28-current-upstream.yml.
CURRENT_UPSTREAM_SCENARIOS='server-stateless input-required-result-basic-elicitation input-required-result-basic-sampling
  input-required-result-basic-list-roots input-required-result-request-state input-required-result-multiple-input-requests
  input-required-result-multi-round input-required-result-missing-input-response input-required-result-non-tool-request
  input-required-result-result-type input-required-result-unsupported-methods input-required-result-tampered-state
  input-required-result-capability-check input-required-result-ignore-extra-params input-required-result-validate-input'
start_server --current-revision
started=$(date +%s)
expected=test/conformance/expected-failures-server-2026-07-28-current-upstream.yml
echo "conformance (server, 2026-07-28, upstream in 2026-07-28): input-required-result-* and server-stateless, against $url"
# One npx for them all (each start of npx costs seconds); per scenario, its summary and its failures and warnings.
out=$(mktemp)
scenarios=$(echo $CURRENT_UPSTREAM_SCENARIOS)
npx -y -p node@22 -p "$SUITE" -c "for scenario in $scenarios; do echo \"=== \$scenario\"; \
  conformance server --url '$url' --scenario \$scenario --spec-version 2026-07-28 --expected-failures $expected || echo '=== failed'; done" \
  >"$out" 2> >(grep -v 'EBADENGINE\|npm warn' >&2) || status=1
sed 's/\x1b\[[0-9;]*m//g' "$out" | awk '
  /^=== failed$/ { print "  (" name " failed the run)"; next }
  /^=== / { name = $2; next }
  /^Passed: / { print "  " name ": " $0 }
  / (FAILURE|WARNING) / { print "  " $0 }'
if grep -q '^=== failed$' "$out"; then status=1; fi
passed=$(sed -n 's/^Passed: \([0-9]*\)\/.*/\1/p' "$out" | awk '{ sum += $1 } END { print sum + 0 }')
failed=$(sed -n 's/^Passed: [0-9]*\/[0-9]*, \([0-9]*\) failed.*/\1/p' "$out" | awk '{ sum += $1 } END { print sum + 0 }')
rm -f "$out"
echo "conformance (server, 2026-07-28, upstream in 2026-07-28): $passed checks pass, $failed fail; $(( $(date +%s) - started )) s"
[ "$status" -eq 0 ] || {
  echo "conformance (server): failed; codemode-mcp's logs:" >&2
  cat "${logs[@]}" >&2
}
exit "$status"
