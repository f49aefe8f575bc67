#!/usr/bin/env bash
# The official MCP conformance suite's server scenarios that apply to a server offering one tool,
# code_execution, run against `codemode-mcp --http` (in front of server-everything). The suite
# needs Node 22; npx brings it. Run from .ci/run after the build; exits non-zero if any fails.
set -euo pipefail
cd "$(dirname "$0")/../.."

SCENARIOS=(server-initialize ping logging-set-level tools-list server-sse-multiple-streams dns-rebinding-protection)
SUITE='@modelcontextprotocol/conformance@0.1.16'

log=$(mktemp)
node bin/codemode-mcp.js --http 127.0.0.1:0 -- node node_modules/@modelcontextprotocol/server-everything/dist/index.js 2>"$log" &
server=$!
trap 'kill -TERM "$server" 2>/dev/null; wait "$server" 2>/dev/null; rm -f "$log"' EXIT

url=''
for _ in $(seq 1 300); do
  url=$(grep -o 'http://127\.0\.0\.1:[0-9]*/mcp' "$log" | head -n 1 || true)
  [ -n "$url" ] && break
  kill -0 "$server" 2>/dev/null || { cat "$log"; echo "codemode-mcp --http exited before listening" >&2; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { cat "$log"; echo "codemode-mcp --http did not listen within 30 s" >&2; exit 1; }

echo "conformance: ${SCENARIOS[*]} against $url"
npx -y -p node@22 -p "$SUITE" -c "
  failed=''
  for scenario in ${SCENARIOS[*]}; do
    conformance server --url '$url' --scenario \"\$scenario\" || failed=\"\$failed \$scenario\"
  done
  if [ -n \"\$failed\" ]; then echo \"conformance: failed:\$failed\" >&2; exit 1; fi
  echo 'conformance: all ${#SCENARIOS[@]} server scenarios passed'
" 2> >(grep -v 'EBADENGINE\|npm warn' >&2)
