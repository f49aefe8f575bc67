/** Sixteen one-call runs sent at once, with the server's defaults, against one such run alone. */
import { interleaved, sleep, timed } from './measure.js';
import type { BenchContext, Row } from './report.js';
import { runScript, startServer } from './server.js';
import { POOL_SETTLE_MS } from './calls.js';

const AT_ONCE = 16;
const ONE_CALL = 'return (await tools.echo({ text: "x" })).content[0].text';

export async function measureBurst(ctx: BenchContext): Promise<Row[]> {
  ctx.log(`${AT_ONCE} runs at once, default settings…`);
  const server = await startServer([]);
  let refused = 0;
  try {
    await sleep(POOL_SETTLE_MS);
    const figures = await interleaved(
      ctx.quick ? 2 : ctx.rounds,
      () =>
        timed(async () => {
          const outcomes = await Promise.all(Array.from({ length: AT_ONCE }, () => runScript(server, ONE_CALL)));
          refused += outcomes.filter((outcome) => 'refused' in outcome).length;
        }),
      () => timed(() => runScript(server, ONE_CALL)),
      POOL_SETTLE_MS,
    );
    return [
      {
        name: `${AT_ONCE} one-call runs sent at once, defaults`,
        value: figures.subject,
        unit: 'ms',
        floorName: 'one such run alone',
        floor: figures.floor,
        goal: { text: '≤ 3 ×, none refused', met: (value, floor) => value <= 3 * floor && refused === 0 },
        note: `${refused} of ${AT_ONCE * (ctx.quick ? 2 : ctx.rounds)} refused`,
      },
    ];
  } finally {
    await server.close();
  }
}
