/**
 * Sixteen one-call runs sent at once, with the server's defaults, against one such run alone: the
 * first burst after start (the pool holds its default two, and nothing of the client's scripts is
 * measured yet), then bursts once the pool has settled, as a client's next burst finds it.
 */
import { interleaved, timed } from './measure.js';
import type { BenchContext, Row } from './report.js';
import { runScript, startServer } from './server.js';
import { poolSettled } from './settle.js';

const AT_ONCE = 16;
const ONE_CALL = 'return (await tools.echo({ text: "x" })).content[0].text';

/**
 * Each round waits for the pool to settle before its burst and before its run alone: CI's quick
 * run, which only checks that the bench still runs, takes one.
 */
function burstRounds(ctx: BenchContext): number {
  return ctx.quick ? 1 : ctx.rounds;
}

export async function measureBurst(ctx: BenchContext): Promise<Row[]> {
  ctx.log(`${AT_ONCE} runs at once, default settings…`);
  const server = await startServer([]);
  let refused = 0;
  const burst = async (): Promise<void> => {
    const outcomes = await Promise.all(Array.from({ length: AT_ONCE }, () => runScript(server, ONE_CALL)));
    refused += outcomes.filter((outcome) => 'refused' in outcome).length;
  };
  try {
    await poolSettled(server.pid, 2);
    const first = await timed(burst);
    // Each after the pool has refilled, as a client's next request finds it: back to back, the
    // run alone would wait for the children the burst used up.
    const figures = await interleaved(
      burstRounds(ctx),
      async () => {
        await poolSettled(server.pid, 2);
        return timed(burst);
      },
      async () => {
        await poolSettled(server.pid, 2);
        return timed(() => runScript(server, ONE_CALL));
      },
    );
    const runs = AT_ONCE * (burstRounds(ctx) + 1);
    return [
      {
        name: `${AT_ONCE} one-call runs at once, the first burst after start (a pool of 2)`,
        value: first,
        unit: 'ms',
        floorName: 'one such run alone',
        floor: figures.floor,
      },
      {
        name: `${AT_ONCE} one-call runs sent at once, defaults, a later burst`,
        value: figures.subject,
        unit: 'ms',
        floorName: 'one such run alone',
        floor: figures.floor,
        goal: { text: '≤ 3 ×, none refused', met: (value, floor) => value <= 3 * floor && refused === 0 },
        note: `${refused} of ${runs} runs refused`,
      },
    ];
  } finally {
    await server.close();
  }
}
