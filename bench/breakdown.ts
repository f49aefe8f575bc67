/** Where a cold start goes, from a probe process of its own (probe-engine.ts), and one MCP hop. */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../src/support/package-root.js';
import { median, timed } from './measure.js';
import type { BenchContext } from './report.js';
import { startServer } from './server.js';

function probeEngine(): Record<string, number> {
  const out = execFileSync(process.execPath, [join(PACKAGE_ROOT, 'dist', 'bench', 'probe-engine.js')], { encoding: 'utf8' });
  return JSON.parse(out) as Record<string, number>;
}

export async function measureBreakdown(ctx: BenchContext): Promise<string> {
  ctx.log('breakdown…');
  const probes = Array.from({ length: ctx.rounds }, probeEngine);
  const field = (name: string) => median(probes.map((probe) => probe[name]!));
  const server = await startServer(['--pool', '0']);
  const hops: number[] = [];
  try {
    for (let i = 0; i < ctx.rounds; i++) {
      hops.push(await timed(() => server.client.callTool({ name: 'code_execution', arguments: { action: 'list' } })));
    }
  } finally {
    await server.close();
  }
  const rows: Array<[string, number]> = [
    ['Node start, to the first line of the child (in-process clock)', field('nodeStartMs')],
    ['engine modules imported (overlapping the wasm compile)', field('importMs')],
    ['wasm compile still to wait for after the imports', field('wasmCompileWaitMs')],
    ['prelude snapshot restore, cold', field('coldRestoreMs')],
    ['first script compile, cold (lazily compiled QuickJS code)', field('coldScriptCompileMs')],
    ['prelude snapshot restore, after a warm-up', field('warmRestoreMs')],
    ['script compile, after a warm-up', field('warmScriptCompileMs')],
    ['MCP hop: tools/call code_execution {action: "list"} round trip', median(hops)],
  ];
  return [
    '| where a cold start goes (medians) | ms |',
    '|---|---|',
    ...rows.map(([name, ms]) => `| ${name} | ${ms.toFixed(2)} |`),
  ].join('\n');
}
