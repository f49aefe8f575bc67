/**
 * A paced one-call run in front of a catalog of the size users have: the timing upstream beside
 * the three reference servers from npm (server-everything, server-filesystem, server-memory), 43
 * tools in all, against one direct call. The calls rows use the timing upstream alone (3 tools),
 * which hides what a run costs that grows with the catalog.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../src/support/package-root.js';
import { interleaved, timed } from './measure.js';
import { atMost, type BenchContext, type Row } from './report.js';
import { TIMING_UPSTREAM, runCode, startDirect, startServerWithConfig } from './server.js';
import { poolSettled } from './settle.js';

const ONE_CALL = 'return (await tools.timing__echo({ text: "x" })).content[0].text';

function reference(pkg: string): string {
  return join(PACKAGE_ROOT, 'node_modules', '@modelcontextprotocol', pkg, 'dist', 'index.js');
}

/** The four upstreams' config, in a directory of its own (the filesystem server's root, the memory server's file). */
function writeConfig(dir: string): string {
  const node = (args: string[], env?: Record<string, string>) => ({ command: process.execPath, args, ...(env ? { env } : {}) });
  const config = join(dir, 'servers.json');
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        everything: node([reference('server-everything'), 'stdio']),
        files: node([reference('server-filesystem'), dir]),
        memory: node([reference('server-memory')], { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') }),
        timing: node([TIMING_UPSTREAM]),
      },
    }),
  );
  return config;
}

export async function measureCatalog(ctx: BenchContext): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'codemode-bench-catalog-'));
  const direct = await startDirect();
  const server = await startServerWithConfig(writeConfig(dir), ['--pool', '2']);
  try {
    const tools = (await runCode(server, 'return ALL_TOOLS.length')) as number;
    await poolSettled(server.pid, 2);
    ctx.log(`paced one-call runs, ${tools} tools from four upstreams…`);
    const paced = await interleaved(
      ctx.rounds,
      () => timed(() => runCode(server, ONE_CALL)),
      () => timed(() => direct.client.callTool({ name: 'echo', arguments: { text: 'x' } })),
      300,
    );
    return [
      {
        name: `a paced run making one call, ${tools} tools from four upstreams`,
        value: paced.subject,
        unit: 'ms',
        floorName: 'one direct call',
        floor: paced.floor,
        goal: atMost(4),
      },
    ];
  } finally {
    await server.close();
    await direct.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
