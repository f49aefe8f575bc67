/**
 * npm run bench: each figure against its floor, measured round by round in the same run (these
 * machines are shared and noisy), medians over the rounds, the clock stopped when the client has
 * the answer. `--quick` (CI) runs fewer rounds, checks that everything still runs, and writes
 * nothing.
 */
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../src/script-host/engine-path.js';
import { measureBreakdown } from './breakdown.js';
import { measureBurst } from './burst.js';
import { measureCalls } from './calls.js';
import { measureCatalog } from './catalog.js';
import { measureCpu } from './cpu.js';
import { measureHttp } from './http.js';
import { measureMemory } from './memory.js';
import { measureReuse } from './reuse.js';
import { renderRows, type BenchContext, type Row } from './report.js';
import { measureStack } from './stack-depth.js';
import { measureStartup } from './startup.js';
import { measureStops } from './stops.js';
import { measureTelemetry } from './telemetry.js';

const quick = process.argv.includes('--quick');
const ctx: BenchContext = { quick, rounds: quick ? 1 : 15, log: (line) => process.stderr.write(`${line}\n`) };

const cpu = cpus();
const machine = `${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}`;
ctx.log(`bench${quick ? ' (quick)' : ''}: ${ctx.rounds} rounds each; ${machine}`);

const rows: Row[] = [
  ...(await measureCalls(ctx)),
  ...(await measureCatalog(ctx)),
  ...(await measureCpu(ctx)),
  ...(await measureBurst(ctx)),
  ...(await measureReuse(ctx)),
  ...(await measureStartup(ctx)),
  ...(await measureHttp(ctx)),
  ...(await measureTelemetry(ctx)),
  ...(await measureMemory(ctx)),
  ...(await measureStops(ctx)),
  ...measureStack(ctx),
];
const breakdown = await measureBreakdown(ctx);
const table = `${renderRows(rows)}\n\n${breakdown}`;
process.stdout.write(`${table}\n`);
if (!quick) {
  const results = join(PACKAGE_ROOT, 'bench', 'RESULTS.md');
  writeFileSync(
    results,
    `# Benchmark results\n\nMachine: ${machine}. Medians over ${ctx.rounds} rounds, each figure and its floor measured in ` +
      `alternating rounds of the same run.\n\n${table}\n\nWhat the figures mean and what was cut: see [ANALYSIS.md](ANALYSIS.md).\n`,
  );
  ctx.log(`written to ${results}`);
}
