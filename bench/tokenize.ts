/**
 * What tokenizing costs (issue 48): the tokenizer on a 1 MB answer of customer rows, against the
 * time of that answer end to end through codemode-mcp (a script reads the sheet fixture's rows and
 * returns them; the clock stops when the client has the answer), rounds alternating. Each round
 * tokenizes in a fresh scope, so every value is new to the vault: the dearest case. The tokenizer
 * runs here, in the bench's process, as it will in the server's, on the value the server renders.
 * Off, nothing of it runs or loads (src/tokenize/libraries.ts): that needs no figure.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DEFAULT_TOKENIZE, type TokenizeSettings } from '../src/config/tokenize-setting.js';
import { PACKAGE_ROOT } from '../src/script-host/engine-path.js';
import { Tokenizer } from '../src/tokenize/tokenizer.js';
import type { CustomerRow } from '../test/fixtures/upstreams/customer-rows.mjs';
import { interleaved, median, timed } from './measure.js';
import { atMost, type BenchContext, type Row } from './report.js';
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
  const server = await connect(process.execPath, [
    BIN,
    '--pool',
    '2',
    '--',
    process.execPath,
    join(FIXTURES, 'sheet.mjs'),
    String(ROWS),
  ]);
  const results: Row[] = [];
  try {
    await poolSettled(server.pid, 2);
    const returned = await runCode(server, RETURN_ROWS);
    if (JSON.stringify(returned) !== text)
      throw new Error('bench: the rows returned through codemode-mcp are not the sheet rows');
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
  }
  return results;
}
