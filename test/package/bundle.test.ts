/**
 * The MCP Bundle (npm run bundle) as Claude Desktop would use it: unpacked, its manifest's command
 * line filled in with the user's answers, started, and a script run through it.
 */
import { readFileSync, rmSync } from 'node:fs';

import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, nodeEntry, publishedEntry, startServer, valueOf, writeConfig } from '../support/mcp-client.js';
import { makeTempDir } from '../support/temp-dirs.js';

interface Manifest {
  readonly version: string;
  readonly server: { readonly mcp_config: { readonly command: string; readonly args: readonly string[] } };
  readonly user_config: Readonly<Record<string, { readonly default?: string | number; readonly required?: boolean }>>;
}

let dir: string;
let manifest: Manifest;

beforeAll(async () => {
  dir = makeTempDir('mcpb-test');
  await execa(process.execPath, [join(ROOT, 'build', 'bundle-mcpb.js')], { cwd: ROOT });
  await execa(process.execPath, [
    join(ROOT, 'node_modules', '@anthropic-ai', 'mcpb', 'dist', 'cli', 'cli.js'),
    'unpack',
    join(ROOT, 'codemode-mcp.mcpb'),
    dir,
  ]);
  manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Manifest;
}, 240_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('the MCP Bundle', () => {
  it("carries the package's version and asks for the servers config file", () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(manifest.version).toBe(version);
    expect(manifest.user_config.servers_config?.required).toBe(true);
  });

  it("starts from its manifest's command line, filled in as Claude Desktop would, and runs a script", async () => {
    const config = writeConfig({ everything: nodeEntry(publishedEntry('server-everything')) });
    const answers: Record<string, string> = { servers_config: config };
    for (const [name, field] of Object.entries(manifest.user_config))
      if (answers[name] === undefined) answers[name] = String(field.default);
    const args = manifest.server.mcp_config.args.map((arg) =>
      arg.replaceAll('${__dirname}', dir).replace(/\$\{user_config\.(\w+)\}/g, (_, name: string) => answers[name]!),
    );
    expect(manifest.server.mcp_config.command).toBe('node');
    const server = await startServer(args.slice(1), { bin: args[0]! });
    const result = await server.run({ code: 'return (await tools["echo"]({ message: "bundled" })).content[0].text' });
    expect(valueOf(result)).toBe('Echo: bundled');
    expect(await server.close()).toEqual([]);
  });
});
