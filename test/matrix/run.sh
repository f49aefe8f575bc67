#!/usr/bin/env bash
# The end-to-end tests that prove a runtime serves, on Node 24 and on Bun (each from npm), with
# vitest itself on the Node that runs CI: CODEMODE_TEST_RUNTIME picks what runs
# bin/codemode-mcp.js (test/support/mcp-client.ts); the script children run on the same runtime.
# The files: stdio serving and a run calling a real upstream (everything), yield, wait, stop, list
# and cancel (scripts), the one-shot command and a stubborn upstream's end (tools-command), and
# Streamable HTTP (http-sessions). Expects a build (npm test makes one).
set -euo pipefail
cd "$(dirname "$0")/../.."

NODE_24=24.9.0
BUN=1.4.5
FILES=(test/e2e/everything.test.ts test/e2e/scripts.test.ts test/e2e/tools-command.test.ts)
HTTP=test/e2e/http-sessions.test.ts

run_on() {
  local name=$1 runtime=$2
  shift 2
  echo "--- e2e on $name ($("$runtime" --version))"
  local started=$SECONDS
  CODEMODE_TEST_RUNTIME=$runtime npx vitest run "$@"
  echo "--- e2e on $name: $((SECONDS - started)) s"
}

# npx installs each into its cache once; `command -v` inside prints the binary's path.
node24=$(npx -y -p "node@$NODE_24" -c 'command -v node')
bun=$(npx -y -p "bun@$BUN" -c 'command -v bun')
run_on "Node $NODE_24" "$node24" "${FILES[@]}" "$HTTP"
run_on "Bun $BUN" "$bun" "${FILES[@]}" "$HTTP"
