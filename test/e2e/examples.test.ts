import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';

import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { ROOT, startServer, textOf, valueOf, type RunningServer } from '../support/mcp-client.js';
import { makeTempDir } from '../support/temp-dirs.js';

// The docs can't drift from the code: each example script runs against the example config its
// header names, started the way the Claude Desktop blocks of the README and docs/clients.md start
// the server. The configs
// start their upstreams with `npx -y`, which finds them in this package's devDependencies.

const scriptsDir = join(ROOT, 'examples', 'scripts');
const scripts = readdirSync(scriptsDir)
  .filter((name) => name.endsWith('.js'))
  .sort();

/** `// config: examples/servers.json` in the script's first lines. */
function configOf(script: string): string {
  const match = /^\/\/ config: (\S+)$/m.exec(readFileSync(join(scriptsDir, script), 'utf8'));
  if (match === null) throw new Error(`examples/scripts/${script} has no "// config: examples/<file>.json" header line`);
  return join(ROOT, match[1]!);
}

/** `// value: {"total": 330}` in the script's first lines: what it returns on the test's files, if it says. */
function expectedValueOf(script: string): unknown {
  const match = /^\/\/ value: (\S+)/m.exec(readFileSync(join(scriptsDir, script), 'utf8'));
  return match === null ? undefined : JSON.parse(match[1]!);
}

/** docs/clients.md's Claude Desktop block for the published package: the `mcpServers` entry that runs `npx -y codemode-mcp`. */
function npxEntry(): { command: string; args: string[] } {
  const clients = readFileSync(join(ROOT, 'docs', 'clients.md'), 'utf8');
  for (const [, block] of clients.matchAll(/```json\n([\s\S]*?)```/g)) {
    const parsed = JSON.parse(block!) as { mcpServers?: Record<string, { command: string; args: string[] }> };
    const entry = Object.values(parsed.mcpServers ?? {}).find((candidate) => candidate.args?.includes('codemode-mcp'));
    if (entry !== undefined) return entry;
  }
  throw new Error(
    'docs/clients.md has no ```json block with an mcpServers entry that runs codemode-mcp (the Claude Desktop block)',
  );
}

/**
 * That entry's command line, with `npx -y codemode-mcp` standing for this checkout's bin
 * (bin/codemode-mcp.js)
 * (the published package is not what is under test) and its --config path for `config`.
 */
function commandLineFor(config: string): string[] {
  const { command, args } = npxEntry();
  expect(command).toBe('npx');
  const rest = args.slice(args.indexOf('codemode-mcp') + 1);
  const configAt = rest.indexOf('--config');
  expect(configAt).toBeGreaterThanOrEqual(0);
  return [...rest.slice(0, configAt + 1), config, ...rest.slice(configAt + 2)];
}

// A home of its own, so ${HOME} in the configs points at files the test owns.
const home = makeTempDir('e2e-home');
mkdirSync(join(home, 'Documents'));
writeFileSync(join(home, 'Documents', 'groceries.txt'), 'milk, eggs\n');
writeFileSync(join(home, 'Documents', 'ideas.txt'), 'a server in front of servers\n');

/**
 * One server per command line, kept to the file's end: the docs' blocks reduce to the same
 * `--config <file>` the examples are run with, so while they do, they share its server (a block
 * that grows another argument gets a server of its own).
 */
const servers = new Map<string, Promise<RunningServer>>();
function serverWith(args: string[]): Promise<RunningServer> {
  const key = JSON.stringify(args);
  let server = servers.get(key);
  if (server === undefined) {
    server = startServer(args, { env: { HOME: home }, cwd: ROOT });
    servers.set(key, server);
  }
  return server;
}
const serverFor = (config: string): Promise<RunningServer> => serverWith(['--config', config]);

afterAll(async () => {
  for (const server of servers.values()) expect(await (await server).close()).toEqual([]);
});

/** The README's Claude Desktop block for a clone: `node /abs/path/codemode-mcp/bin/codemode-mcp.js ...`. */
function readmeCloneEntry(): { command: string; args: string[] } {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  for (const [, block] of readme.matchAll(/```json\n([\s\S]*?)```/g)) {
    const parsed = JSON.parse(block!) as { mcpServers?: Record<string, { command: string; args: string[] }> };
    const entry = Object.values(parsed.mcpServers ?? {}).find((candidate) =>
      candidate.args?.[0]?.endsWith('/bin/codemode-mcp.js'),
    );
    if (entry !== undefined) return entry;
  }
  throw new Error('README.md has no ```json block that runs bin/codemode-mcp.js from a clone');
}

describe('the examples', () => {
  test("the README's from-a-clone block starts this checkout's bin, and it runs an example script", async () => {
    const { command, args } = readmeCloneEntry();
    expect(command).toBe('node');
    const configAt = args.indexOf('--config');
    const script = 'parallel-sums.js';
    // The block's /abs/path/codemode-mcp stands for this checkout.
    const server = await serverWith([...args.slice(1, configAt + 1), configOf(script), ...args.slice(configAt + 2)]);
    expect(textOf(await server.run({ code: readFileSync(join(scriptsDir, script), 'utf8') }))).toMatch(/^Script \S+ finished/);
  });

  test("docs/clients.md's Claude Desktop block for the published package starts a server that runs an example script", async () => {
    expect(npxEntry()).toMatchObject({ command: 'npx', args: expect.arrayContaining(['-y', 'codemode-mcp', '--config']) });
    const script = 'parallel-sums.js';
    const server = await serverWith(commandLineFor(configOf(script)));
    const result = await server.run({ code: readFileSync(join(scriptsDir, script), 'utf8') });
    expect(textOf(result)).toMatch(/^Script \S+ finished/);
  });

  test.each(scripts)('examples/scripts/%s runs to its end against the config its header names', async (script) => {
    const server = await serverFor(configOf(script));
    const result = await server.run({ code: readFileSync(join(scriptsDir, script), 'utf8') });
    expect(textOf(result)).toMatch(/^Script \S+ finished/);
    expect(result.isError).toBe(false);
    const expected = expectedValueOf(script);
    if (expected !== undefined) expect(valueOf(result)).toEqual(expected);
  });
});
