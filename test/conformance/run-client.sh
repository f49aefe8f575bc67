#!/usr/bin/env bash
# The official MCP conformance suite's client scenarios, run against codemode-mcp through
# client-wrapper.mjs: every scenario passes or is listed in expected-failures.yml with its reason.
# The suite (@modelcontextprotocol/conformance, pinned) needs Node 22, which npx brings; the wrapper
# and codemode-mcp run on the Node this script finds first, the project's own. Needs the npm
# registry (the first run downloads both), and a build (dist/).
#
# Two runs, each in parallel: the scenarios the 2026-07-28 revision requires of a client
# (`--requirements`, frozen at the revision's release) with 0.2.0-alpha.12, then the auth suite of
# 0.1.16 (`--suite auth`: the 2025-11-25 sign-in scenarios, auth/scope-retry-limit among them).
set -euo pipefail
cd "$(dirname "$0")/../.."

CURRENT=@modelcontextprotocol/conformance@0.2.0-alpha.12
EARLIER=@modelcontextprotocol/conformance@0.1.16
REVISION=2026-07-28
HERE=test/conformance
# Generous: the set runs 39 clients at once, each codemode-mcp, its script's child and a sign-in.
TIMEOUT_MS=120000

if [ -z "${CONFORMANCE_INNER:-}" ]; then
  export CONFORMANCE_NODE
  CONFORMANCE_NODE=$(command -v node)
  export CONFORMANCE_LOGS
  CONFORMANCE_LOGS=$(mktemp -d)
  status=0
  for suite in "$CURRENT" "$EARLIER"; do
    started=$(date +%s)
    CONFORMANCE_INNER="$suite" npx -y -p node@22 -p "$suite" -c "bash $HERE/run-client.sh" 2> >(grep -v 'EBADENGINE\|^npm warn' >&2) || status=1
    echo "conformance (client, $suite): $(( $(date +%s) - started )) s"
  done
  echo "conformance (client): full output in $CONFORMANCE_LOGS"
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

if [ "$CONFORMANCE_INNER" = "$CURRENT" ]; then
  run "requirements-$REVISION" --requirements "$REVISION"
else
  run "auth-0.1.16" --suite auth
fi
exit $failed
