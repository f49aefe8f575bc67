#!/usr/bin/env bash
# The official MCP conformance suite's client scenarios, run against codemode-mcp through
# client-wrapper.mjs: every scenario passes or is listed in expected-failures.yml with its reason.
# The suite (@modelcontextprotocol/conformance, pinned) needs Node 22, which npx brings; the wrapper
# and codemode-mcp run on the Node this script finds first, the project's own. Needs the npm
# registry (the first run downloads both), and a build (dist/).
#
# One run: the scenarios the 2026-07-28 revision requires of a client (`--requirements`, frozen
# at the revision's release), in parallel.
set -euo pipefail
cd "$(dirname "$0")/../.."

CONFORMANCE=@modelcontextprotocol/conformance@0.2.0-alpha.12
REVISION=2026-07-28
HERE=test/conformance
# Generous: the set runs 39 clients at once, each codemode-mcp, its script's child and a sign-in.
TIMEOUT_MS=120000

if [ -z "${CONFORMANCE_INNER:-}" ]; then
  started=$(date +%s)
  export CONFORMANCE_NODE
  CONFORMANCE_NODE=$(command -v node)
  export CONFORMANCE_LOGS
  CONFORMANCE_LOGS=$(mktemp -d)
  status=0
  CONFORMANCE_INNER=1 npx -y -p node@22 -p "$CONFORMANCE" -c "bash $HERE/run-client.sh" 2> >(grep -v 'EBADENGINE\|^npm warn' >&2) || status=$?
  echo "conformance (client): $(( $(date +%s) - started )) s; full output in $CONFORMANCE_LOGS"
  exit $status
fi

command="$CONFORMANCE_NODE $PWD/$HERE/client-wrapper.mjs"
failed=0
run() {
  local name=$1; shift
  local log="$CONFORMANCE_LOGS/$name.log" began
  began=$(date +%s)
  if conformance client --command "$command" --timeout "$TIMEOUT_MS" --expected-failures "$HERE/expected-failures.yml" \
    --output-dir "$CONFORMANCE_LOGS/$name" "$@" >"$log" 2>&1; then
    echo "conformance $name: ok ($(( $(date +%s) - began )) s)"
  else
    echo "conformance $name: FAILED ($(( $(date +%s) - began )) s)"
    failed=1
  fi
  # The summary lines: per scenario (suites), the overall result (one scenario), the baseline's verdict.
  grep -E '^[✓✗] |^Passed: |^Total: |^  [~✓✗] |^(Baseline|Unexpected|Stale)' "$log" | sed 's/\x1b\[[0-9;]*m//g; s/^/  /' || true
}

run "requirements-$REVISION" --requirements "$REVISION"
exit $failed
