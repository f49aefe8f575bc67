/**
 * What tokenizing costs (issue 48). First, wired: a 1 MB answer of customer rows end to end
 * through codemode-mcp with --tokenize (a script reads the sheet fixture's rows and returns them;
 * the clock stops when the client has the answer, tokenized at the connection's transport), against
 * the same answer from a server without it, rounds alternating. The server's one client is one
 * scope, so past the first round its values are known to the vault. Then the tokenizer alone, in
 * the bench's process, on that answer in a fresh scope each round (every value new to the vault:
 * the dearest case), against the answer end to end without it. Off, nothing of it runs or loads
 * (src/tokenize/libraries.ts; the off path is one check that no tokenizer exists): that needs no figure.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DEFAULT_TOKENIZE, type TokenizeSettings } from '../src/config/tokenize-setting.js';
import { PACKAGE_ROOT } from '../src/support/package-root.js';
import { Tokenizer } from '../src/tokenize/tokenizer.js';
import type { CustomerRow } from '../test/fixtures/upstreams/customer-rows.mjs';
import { interleaved, median, timed } from './measure.js';
import { atMost, type BenchContext, type Row } from './report.js';
import { ownCpuMs } from './processes.js';
import { connect, runCode } from './server.js';
import { poolSettled } from './settle.js';

const FIXTURES = join(PACKAGE_ROOT, 'test', 'fixtures', 'upstreams');
const BIN = join(PACKAGE_ROOT, 'bin', 'codemode-mcp.js');
/** 2,300 rows: 0.96 MB of JSON, a value under the 1 MiB cap. */
const ROWS = 2_300;
const RETURN_ROWS = 'return JSON.parse((await tools.list_customers({})).content[0].text)';

interface Case {
  readonly name: string;
  readonly settings: TokenizeSettings;
  readonly as: 'value' | 'text';
}

/** The answer's text first: what the client receives, and what the server holds of a large value (its JSON). */
const CASES: readonly Case[] = [
  { name: 'as the JSON text the client receives, the default detectors', settings: DEFAULT_TOKENIZE, as: 'text' },
  {
    name: 'as JSON text, fields name and address, phoneRegion US',
    settings: { ...DEFAULT_TOKENIZE, fields: ['name', 'address'], phoneRegion: 'US' },
    as: 'text',
  },
  { name: 'as a parsed JSON value, the default detectors', settings: DEFAULT_TOKENIZE, as: 'value' },
];

export async function measureTokenize(ctx: BenchContext): Promise<Row[]> {
  const { customerRows } = (await import(
    pathToFileURL(join(FIXTURES, 'customer-rows.mjs')).href
  )) as typeof import('../test/fixtures/upstreams/customer-rows.mjs');
  const rows: CustomerRow[] = customerRows(ROWS);
  const text = JSON.stringify(rows);
  const serve = (flags: readonly string[]) =>
    connect(process.execPath, [BIN, '--pool', '2', ...flags, '--', process.execPath, join(FIXTURES, 'sheet.mjs'), String(ROWS)]);
  const server = await serve([]);
  const tokenizing = await serve(['--tokenize']);
  const results: Row[] = [];
  try {
    await poolSettled(server.pid, 2);
    await poolSettled(tokenizing.pid, 2);
    const returned = await runCode(server, RETURN_ROWS);
    if (JSON.stringify(returned) !== text)
      throw new Error('bench: the rows returned through codemode-mcp are not the sheet rows');
    const tokenized = JSON.stringify(await runCode(tokenizing, RETURN_ROWS));
    if (rows.some((row) => tokenized.includes(row.email)) || !tokenized.includes(`[EMAIL_${ROWS}]`))
      throw new Error('bench: the rows returned with --tokenize are not tokenized');
    ctx.log('a 1 MB answer end to end with --tokenize…');
    const serverCpu = { on: [] as number[], off: [] as number[] };
    const answer = async (target: typeof server, cpu: number[]): Promise<number> => {
      await poolSettled(target.pid, 2);
      const before = ownCpuMs(target.pid);
      const ms = await timed(() => runCode(target, RETURN_ROWS));
      cpu.push(ownCpuMs(target.pid) - before);
      return ms;
    };
    const wired = await interleaved(
      ctx.rounds,
      () => answer(tokenizing, serverCpu.on),
      () => answer(server, serverCpu.off),
    );
    results.push({
      name: `a 1 MB answer (${ROWS} customer rows) end to end with --tokenize, the default detectors`,
      value: wired.subject,
      unit: 'ms',
      floorName: 'that answer end to end without it',
      floor: wired.floor,
      goal: atMost(1.1),
      // The server's own CPU for the answer (10 ms ticks): what the wall clock of a loaded machine blurs.
      note: `server CPU ${median(serverCpu.on).toFixed(0)} ms, without ${median(serverCpu.off).toFixed(0)} ms`,
    });
    let round = 0;
    for (const { name, settings, as } of CASES) {
      ctx.log(`tokenizing a 1 MB answer ${name}…`);
      const tokenizer = new Tokenizer(settings);
      const cpu: number[] = [];
      const figures = await interleaved(
        ctx.rounds,
        async () => {
          const name = `round ${round++}`;
          const scope = tokenizer.forScope(name);
          const before = process.cpuUsage();
          const ms = await timed(() => (as === 'value' ? scope.tokenizeValue(rows) : scope.tokenizeText(text)));
          const used = process.cpuUsage(before);
          cpu.push((used.user + used.system) / 1_000);
          // A session's tokens are forgotten with it: the vault does not grow round by round.
          await tokenizer.forget(name);
          return ms;
        },
        async () => {
          await poolSettled(server.pid, 2);
          return timed(() => runCode(server, RETURN_ROWS));
        },
      );
      results.push({
        name: `tokenizing a 1 MB answer (${ROWS} customer rows) ${name}`,
        value: figures.subject,
        unit: 'ms',
        floorName: 'that answer end to end through codemode-mcp',
        floor: figures.floor,
        goal: atMost(0.1),
        // On a loaded machine a wall clock counts the waits for a core too: the CPU it took says what it costs.
        note: `CPU ${median(cpu).toFixed(1)} ms`,
      });
    }
  } finally {
    await server.close();
    await tokenizing.close();
  }
  return results;
}
