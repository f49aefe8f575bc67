#!/usr/bin/env bash
# The official MCP conformance suite's server scenarios, for both protocol revisions the server
# speaks, against `codemode-mcp --http --expose '*'` in front of our own fixture upstream
# (test/fixtures/upstreams/conformance-everything.mjs: the tools, resources, prompts and
# completions the scenarios ask for). Each scenario runs in front of the fixture speaking the
# revision it needs:
#   A. the fixture speaking 2025 (server-to-client requests; its tools' listing says which take
#      tasks): the 2025-11-25 requirement set, the 2026-07-28 set, the Skills extension's scenarios;
#   B. the fixture speaking 2026-07-28 (--current-revision; it answers input_required itself, with
#      the keys the scenarios name, and makes its task tools tasks itself): the
#      input-required-result-* scenarios and tasks-mrtr-composition, which A fails for want of such
#      an upstream, five at a time against one server.
# In A's 2026-07-28 run, the scenarios listed in expected-failures-server-2026-07-28.yml fail on
# purpose, each with its reason (those that need an upstream's own input_required keys, or its
# own tasks, pass in B); the suite fails the run on any other failure and on a listed scenario that passes. Prints
# each scenario's result and, for the 2026-07-28 set, how many of its scenarios pass in all. The
# suite needs Node 22; npx brings it. Run from .ci/run after the build; exits non-zero on a failure.
set -euo pipefail
cd "$(dirname "$0")/../.."

SUITE='@modelcontextprotocol/conformance@0.2.0-alpha.12'
FIXTURE=test/fixtures/upstreams/conformance-everything.mjs
# One saved skill, served through the Skills extension (SEP-2640) for the sep-2640-* scenarios.
SKILLS=test/fixtures/skills
# How many of B's scenarios run at once against its one server.
PARALLEL=5
ci_started=$(date +%s)
conformance() { npx -y -p node@22 -p "$SUITE" -c "$1" 2> >(grep -v 'EBADENGINE\|npm warn' >&2); }
# Without colours, for the summary's lines to be read.
plain() { sed 's/\x1b\[[0-9;]*m//g' "$@"; }

# Starts codemode-mcp --http in front of the fixture (with its extra arguments) and sets $url.
work=$(mktemp -d)
servers=()
start_server() {
  local log="$work/server-${#servers[@]}.log"
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
  rm -rf "$work"
}
trap stop_servers EXIT
status=0

# --- A: the fixture speaking 2025 ---
start_server
for revision in 2025-11-25 2026-07-28; do
  started=$(date +%s)
  expected=test/conformance/expected-failures-server-$revision.yml
  baseline=''
  [ -f "$expected" ] && baseline="--expected-failures $expected"
  echo "conformance (server, $revision, upstream in 2025): the scenarios the revision requires, against $url"
  out="$work/a-$revision.txt"
  conformance "conformance server --url '$url' --requirements $revision $baseline" >"$out" || status=1
  # The summary: each scenario, the totals, and the baseline's verdict.
  plain "$out" | grep -E '^[✓✗] |^Total: |^  [~✓✗] |^(Baseline|Unexpected|Stale)' || true
  echo "conformance (server, $revision, upstream in 2025): $(($(date +%s) - started)) s"
done
# The Skills extension's scenarios (SEP-2640), which no requirement set lists yet: each must pass.
for scenario in sep-2640-skills-enumeration sep-2640-skills-manifest sep-2640-skills-directory; do
  out="$work/$scenario.txt"
  conformance "conformance server --url '$url' --scenario $scenario" >"$out" || status=1
  echo "conformance (server, $scenario): $(plain "$out" | grep -E '^Passed: ' || echo 'no summary')"
  plain "$out" | grep -E 'FAILURE|WARNING' || true
done

# --- B: the fixture speaking 2026-07-28 ---
# The 2026-07-28 set's scenarios of input the server asks for (SEP-2322), and of a task made after
# it (tasks-mrtr-composition, SEP-2663), that A lists as failing for want of an upstream that answers
# input_required and makes tasks itself (expected-failures-server-2026-07-28.yml): here that
# upstream's own rounds and tasks pass through codemode-mcp. Five at a time, all as one principal:
# each call's rounds are its own whatever else runs.
CURRENT_UPSTREAM_SCENARIOS=$(sed -n 's/^  - \(input-required-result-[a-z-]*\|tasks-mrtr-composition\)$/\1/p' test/conformance/expected-failures-server-2026-07-28.yml)
start_server --current-revision
started=$(date +%s)
echo "conformance (server, 2026-07-28, upstream in 2026-07-28): $(echo $CURRENT_UPSTREAM_SCENARIOS | wc -w) scenarios (input-required-result-*, tasks-mrtr-composition), $PARALLEL at a time, against $url"
mkdir -p "$work/b"
# One npx for them all (each start of npx costs seconds); a file per scenario, '=== failed' at its end when it failed.
# --force: the suite skips an extension's scenario (tasks-mrtr-composition) at a --spec-version,
# with exit code 0 and no checks, "not on the spec timeline".
conformance "echo $(echo $CURRENT_UPSTREAM_SCENARIOS) | tr ' ' '\n' | xargs -P $PARALLEL -I{} sh -c \
  'conformance server --url \"$url\" --scenario {} --spec-version 2026-07-28 --force >$work/b/{}.txt 2>&1 || echo \"=== failed\" >>$work/b/{}.txt'" || status=1
for scenario in $CURRENT_UPSTREAM_SCENARIOS; do
  file="$work/b/$scenario.txt"
  echo "  $scenario: $(plain "$file" | grep -E '^Passed: ' || echo 'no summary')"
  plain "$file" | grep -E ' (FAILURE|WARNING) ' | sed 's/^/    /' || true
  # A scenario that ran no checks (skipped, say) has passed nothing.
  plain "$file" | grep -qE '^Passed: ' || echo '=== failed' >>"$file"
  if grep -q '^=== failed$' "$file"; then
    echo "    ($scenario failed the run)"
    status=1
  fi
done
echo "conformance (server, 2026-07-28, upstream in 2026-07-28): $(($(date +%s) - started)) s"

# --- The 2026-07-28 set as a whole: each scenario passes in A, or in B for those B runs ---
plain "$work/a-2026-07-28.txt" | sed -n 's/^\([✓✗]\) \([^:]*\):.*/\2 \1/p' >"$work/set.txt"
passed=0
failing=()
while read -r scenario mark; do
  if [ "$mark" = '✓' ] || { [ -f "$work/b/$scenario.txt" ] && ! grep -q '^=== failed$' "$work/b/$scenario.txt"; }; then
    passed=$((passed + 1))
  else
    failing+=("$scenario")
  fi
done <"$work/set.txt"
echo "conformance (server, 2026-07-28): $passed of $(wc -l <"$work/set.txt") scenarios pass${failing[*]:+; failing: ${failing[*]}}"
echo "conformance (server): $(($(date +%s) - ci_started)) s in all"

[ "$status" -eq 0 ] || {
  echo "conformance (server): failed; codemode-mcp's logs:" >&2
  cat "$work"/server-*.log >&2
}
exit "$status"
