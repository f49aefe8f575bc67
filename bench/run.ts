/**
 * npm run bench: each figure against its floor, measured round by round in the same run (these
 * machines are shared and noisy), medians over the rounds, the clock stopped when the client has
 * the answer. `--quick` (CI) runs fewer rounds, checks that everything still runs, and writes
 * nothing. Names select benches (`npm run bench -- nginx-load`): only those run, and only a
 * section they own (nginx-load's) is written into RESULTS.md, the rest printed.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../src/support/package-root.js';
import { measureBreakdown } from './breakdown.js';
import { measureBurst } from './burst.js';
import { measureCalls } from './calls.js';
import { measureCatalog } from './catalog.js';
import { measureCpu } from './cpu.js';
import { measureHttp } from './http.js';
import { measureMemory } from './memory.js';
import { measureNginxLoad } from './nginx-load.js';
import { measurePeers } from './peers.js';
import { measureReuse } from './reuse.js';
import { renderRows, type BenchContext, type Row } from './report.js';
import { measureStack } from './stack-depth.js';
import { measureStartup } from './startup.js';
import { measureStops } from './stops.js';
import { measureTelemetry } from './telemetry.js';
import { measureTypecheck } from './typecheck.js';
import { measureTokenize } from './tokenize.js';

const quick = process.argv.includes('--quick');
const ctx: BenchContext = { quick, rounds: quick ? 1 : 15, log: (line) => process.stderr.write(`${line}\n`) };

/** The benches of the main table, by name, in the order they run. */
const MAIN: ReadonlyArray<readonly [string, (ctx: BenchContext) => Promise<Row[]> | Row[]]> = [
  ['calls', measureCalls],
  ['catalog', measureCatalog],
  ['cpu', measureCpu],
  ['burst', measureBurst],
  ['reuse', measureReuse],
  ['startup', measureStartup],
  ['http', measureHttp],
  ['telemetry', measureTelemetry],
  ['tokenize', measureTokenize],
  ['memory', measureMemory],
  ['stops', measureStops],
  ['stack', measureStack],
  ['typecheck', measureTypecheck],
];
/** Benches with a section of their own in RESULTS.md: one load each, not rounds. */
const SECTIONS: ReadonlyArray<readonly [string, string, (ctx: BenchContext) => Promise<Row[]>]> = [
  ['nginx-load', 'Three instances behind nginx (nginx-load)', measureNginxLoad],
  ['peers', 'Beside a peer: UTCP code mode (peers)', measurePeers],
];
const BREAKDOWN = 'breakdown';

const known = [...MAIN.map(([name]) => name), BREAKDOWN, ...SECTIONS.map(([name]) => name)];
const named = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
const unknown = named.filter((name) => !known.includes(name));
if (unknown.length > 0) {
  process.stderr.write(`bench: no bench named ${unknown.join(', ')}; the benches: ${known.join(', ')}\n`);
  process.exit(2);
}
const selected = (name: string) => named.length === 0 || named.includes(name);

const cpu = cpus();
const machine = `${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}`;
ctx.log(`bench${quick ? ' (quick)' : ''}: ${ctx.rounds} rounds each; ${machine}`);

const rows: Row[] = [];
for (const [name, measure] of MAIN) if (selected(name)) rows.push(...(await measure(ctx)));
const breakdown = selected(BREAKDOWN) ? await measureBreakdown(ctx) : undefined;
const sections: Array<{ readonly name: string; readonly text: string }> = [];
for (const [name, title, measure] of SECTIONS) {
  if (!selected(name)) continue;
  const measured = await measure(ctx);
  // Skipped (its tool is missing here): said in the log, and its section is left as it was.
  if (measured.length > 0) sections.push({ name, text: `## ${title}\n\nMachine: ${machine}.\n\n${renderRows(measured)}` });
}
const main = [rows.length > 0 ? renderRows(rows) : undefined, breakdown].filter((part) => part !== undefined).join('\n\n');
process.stdout.write(`${[main, ...sections.map((section) => section.text)].filter((part) => part !== '').join('\n\n')}\n`);

const results = join(PACKAGE_ROOT, 'bench', 'RESULTS.md');
const FOOTER = 'What the figures mean and what was cut: see [ANALYSIS.md](ANALYSIS.md).';
/** A section as RESULTS.md holds it, between markers, so a later run of that bench alone replaces just it. */
const marked = (name: string, text: string) => `<!-- bench:${name} -->\n${text}\n<!-- /bench:${name} -->`;
if (!quick && named.length === 0) {
  writeFileSync(
    results,
    `# Benchmark results\n\nMachine: ${machine}. Medians over ${ctx.rounds} rounds, each figure and its floor measured in ` +
      `alternating rounds of the same run.\n\n${main}\n\n` +
      sections.map((section) => `${marked(section.name, section.text)}\n\n`).join('') +
      `${FOOTER}\n`,
  );
  ctx.log(`written to ${results}`);
} else if (!quick && sections.length > 0) {
  let text = readFileSync(results, 'utf8');
  for (const section of sections) {
    const at = new RegExp(`<!-- bench:${section.name} -->[\\s\\S]*?<!-- /bench:${section.name} -->`);
    text = at.test(text)
      ? text.replace(at, () => marked(section.name, section.text))
      : text.replace(FOOTER, () => `${marked(section.name, section.text)}\n\n${FOOTER}`);
  }
  writeFileSync(results, text);
  ctx.log(`${sections.map((section) => section.name).join(', ')}: written into ${results} (the rest of it as it was)`);
} else if (!quick) {
  ctx.log('a run of some benches writes only the sections they own (nginx-load); the figures above are printed, not written');
}
