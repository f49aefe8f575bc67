/**
 * CPU-bound work inside a script against the same code in plain Node (this process), round by
 * round; each timed by its own clock around the work, so the figure is the engine's speed, not a
 * run's overhead.
 */
import { interleaved } from './measure.js';
import { atMost, type BenchContext, type Row } from './report.js';
import { runCode, startServer } from './server.js';
import { poolSettled } from './settle.js';

const WORK = {
  'prime sieve to 2,000,000': `
    const n = 2000000, flags = new Uint8Array(n + 1); let count = 0;
    for (let i = 2; i <= n; i++) { if (!flags[i]) { count++; for (let j = i * i; j <= n; j += i) flags[j] = 1; } }
    if (count !== 148933) throw new Error("wrong count " + count);`,
  'JSON round trip of a 5 MB object': `
    const o = Array.from({ length: 50000 }, (_, i) => ({ id: i, name: "item " + i, tags: ["a", "b", "c"], value: i * 1.5, nested: { x: i, y: "yy" } }));
    const back = JSON.parse(JSON.stringify(o));
    if (back.length !== 50000) throw new Error("wrong length");`,
} as const;

/** The code as a script's body and as a function of this process, each returning its own time. */
function timedBody(work: string): string {
  return `const started = performance.now();\n${work}\nreturn performance.now() - started;`;
}

export async function measureCpu(ctx: BenchContext): Promise<Row[]> {
  const rows: Row[] = [];
  const server = await startServer(['--pool', '2']);
  try {
    await poolSettled(server.pid, 2);
    for (const [name, work] of Object.entries(WORK)) {
      ctx.log(`${name}…`);
      // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the same work run by Node itself, the figure the engine's is compared with
      const inNode = new Function(timedBody(work)) as () => number;
      const figures = await interleaved(
        ctx.quick ? 1 : ctx.rounds,
        async () => Number(await runCode(server, timedBody(work))),
        () => Promise.resolve(inNode()),
        200,
      );
      rows.push({
        name: `${name}, in a script`,
        value: figures.subject,
        unit: 'ms',
        floorName: 'the same in plain Node',
        floor: figures.floor,
        ...(name.startsWith('prime') ? { goal: atMost(20) } : {}),
      });
    }
  } finally {
    await server.close();
  }
  return rows;
}
