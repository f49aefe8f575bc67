#!/usr/bin/env node
// The client the official conformance suite drives (`conformance client --command`): it is
// codemode-mcp, with the suite's test server as its one remote upstream. Run as
// `client-wrapper.mjs <server-url>`, with MCP_CONFORMANCE_SCENARIO (and, for pre-registered and
// client_credentials scenarios, MCP_CONFORMANCE_CONTEXT) in the environment, it
//   1. writes a config naming the server (with the `oauth` the scenario's context calls for),
//      keeping sign-ins in a fresh $XDG_CONFIG_HOME;
//   2. for an authorization-code scenario, runs `codemode-mcp login <server> --no-browser` and
//      follows the printed sign-in link with an HTTP client (no browser): the authorization
//      server's redirect goes to codemode-mcp's loopback port;
//   3. starts `codemode-mcp --config ...` over stdio as an MCP client would, answers URL-mode
//      elicitation (a sign-in link offered at run time, e.g. for more scope) the same way and
//      form-mode elicitation with an empty form, lists the tools and runs one script that calls
//      the scenario's tool(s): those its context's `toolCalls` name, with their arguments, or
//      else every tool with none;
//   4. exits 0 when the script finished, 1 otherwise.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const BIN = fileURLToPath(new URL('../../bin/codemode-mcp.js', import.meta.url));
const SERVER = 'conformance';
/** The Client ID Metadata Document URL the basic-cimd scenario expects a client to use. */
const CIMD_URL = 'https://conformance-test.local/client-metadata.json';

/** What each scenario's script calls; the rest call every tool with no arguments. */
const SCRIPTS = {
  initialize: 'return ALL_TOOLS.map((tool) => tool.name);',
  tools_call: 'return (await tools["add_numbers"]({ a: 5, b: 3 })).content;',
  'elicitation-sep1034-client-defaults': 'return (await tools["test_client_elicitation_defaults"]({})).content;',
  'sse-retry': 'return (await tools["test_reconnection"]({})).content;',
  // The focal tool's inputSchema, as a script sees it in ALL_TOOLS, echoed back: kept exactly as listed.
  'json-schema-2020-12-preservation':
    'const focal = ALL_TOOLS.find((tool) => tool.name === "json_schema_2020_12_tool"); return (await tools["json_schema_echo"]({ schema: focal.inputSchema })).content;',
};
const CALL_EVERY_TOOL =
  'const answers = []; for (const tool of ALL_TOOLS) answers.push((await tools[tool.name]({})).content); return answers;';

const serverUrl = process.argv[2];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}');
if (serverUrl === undefined) {
  process.stderr.write('usage: client-wrapper.mjs <server-url> (with MCP_CONFORMANCE_SCENARIO set)\n');
  process.exit(2);
}

const dir = mkdtempSync(join(tmpdir(), 'codemode-conformance-'));
const env = { ...process.env, XDG_CONFIG_HOME: join(dir, 'config') };
const oauth = oauthFor(scenario, context);
const configFile = join(dir, 'servers.json');
writeFileSync(
  configFile,
  JSON.stringify({ mcpServers: { [SERVER]: { type: 'http', url: serverUrl, ...(oauth ? { oauth } : {}) } } }, null, 2),
);

let exitCode = 1;
try {
  if (scenario.startsWith('auth/') && oauth?.grant !== 'client_credentials') await runLogin();
  exitCode = await runServer();
} catch (error) {
  process.stderr.write(`client-wrapper: ${error instanceof Error ? error.message : String(error)}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(exitCode);

/** The entry's `oauth` for the scenario: secrets through variables, as a user's config would have them. */
function oauthFor(name, ctx) {
  switch (name) {
    case 'auth/client-credentials-basic':
      env.CONFORMANCE_CLIENT_SECRET = ctx.client_secret;
      return { grant: 'client_credentials', clientId: ctx.client_id, clientSecret: '${CONFORMANCE_CLIENT_SECRET}' };
    case 'auth/client-credentials-jwt': {
      const keyFile = join(dir, 'client-key.pem');
      writeFileSync(keyFile, ctx.private_key_pem, { mode: 0o600 });
      return { grant: 'client_credentials', clientId: ctx.client_id, privateKeyFile: keyFile };
    }
    case 'auth/pre-registration':
      env.CONFORMANCE_CLIENT_SECRET = ctx.client_secret;
      return { clientId: ctx.client_id, clientSecret: '${CONFORMANCE_CLIENT_SECRET}' };
    case 'auth/basic-cimd':
      return { clientId: CIMD_URL };
    default:
      return undefined;
  }
}

/** `codemode-mcp login`, its printed link followed without a browser; throws when it fails. */
async function runLogin() {
  const child = spawn(process.execPath, [BIN, 'login', SERVER, '--config', configFile, '--no-browser'], {
    env,
    stdio: ['ignore', 'inherit', 'pipe'],
  });
  const follows = [];
  for await (const line of createInterface({ input: child.stderr })) {
    process.stderr.write(`[login] ${line}\n`);
    const link = /^\s+(https?:\/\/\S+)$/.exec(line);
    if (link) follows.push(followSignIn(link[1]));
  }
  const code = await new Promise((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', resolve)));
  await Promise.allSettled(follows);
  if (code !== 0) throw new Error(`codemode-mcp login exited with ${code}`);
}

/** What a browser would do: the authorization server redirects at once (it asks no one), to the loopback redirect URI. */
async function followSignIn(link) {
  const authorization = await fetch(link, { redirect: 'manual' });
  const location = authorization.headers.get('location');
  if (location === null) throw new Error(`the authorization endpoint answered ${authorization.status} with no redirect`);
  const landed = await fetch(new URL(location, link));
  process.stderr.write(`client-wrapper: the sign-in redirect answered ${landed.status}\n`);
}

/** A script making the calls a scenario's context names (`toolCalls`: name and arguments), in order; undefined without any. */
function callsFrom(toolCalls) {
  if (!Array.isArray(toolCalls)) return undefined;
  const calls = toolCalls.map(
    ({ name, arguments: args }) => `answers.push((await tools[${JSON.stringify(name)}](${JSON.stringify(args ?? {})})).content);`,
  );
  return `const answers = []; ${calls.join(' ')} return answers;`;
}

/** codemode-mcp as an MCP client starts it; 0 when the scenario's script finished. */
async function runServer() {
  const transport = new StdioClientTransport({
    command: process.execPath,
    // The scenarios run at once on two cores: the upstream's start may take longer than the default 15 s wait.
    args: [BIN, '--config', configFile, '--pool', '0', '--startup-wait-ms', '120000'],
    env,
    stderr: 'inherit',
  });
  const client = new Client(
    { name: 'codemode-conformance-wrapper', version: '1.0.0' },
    { capabilities: { elicitation: { form: { applyDefaults: true }, url: {} } } },
  );
  client.setRequestHandler('elicitation/create', async (request) => {
    if (request.params.mode === 'url') {
      // Accept first: codemode-mcp waits for the redirect once the link is accepted.
      setImmediate(
        () => void followSignIn(request.params.url).catch((error) => process.stderr.write(`client-wrapper: ${error.message}\n`)),
      );
      return { action: 'accept' };
    }
    // An empty form: the SDK client fills in the schema's defaults (applyDefaults).
    return { action: 'accept', content: {} };
  });
  await client.connect(transport);
  try {
    await client.listTools();
    const code = SCRIPTS[scenario] ?? callsFrom(context.toolCalls) ?? CALL_EVERY_TOOL;
    // The longest yield: the call answers when the script ends, however long 39 scenarios at once make it.
    const answer = await client.callTool(
      { name: 'code_execution', arguments: { code, yield_ms: 600_000 } },
      { timeout: 600_000 },
    );
    const text = answer.content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join('\n');
    process.stdout.write(`${text}\n`);
    return answer.isError ? 1 : 0;
  } finally {
    await client.close();
  }
}
