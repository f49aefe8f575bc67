/** How long a stop takes to answer: a busy loop and a loop of long native calls, against an idle script. */
import { interleaved, now } from './measure.js';
import type { BenchContext, Row } from './report.js';
import { startServer, type Connected } from './server.js';
import { poolSettled } from './settle.js';

async function stopOnce(server: Connected, code: string): Promise<number> {
  const started = await server.client.callTool({ name: 'code_execution', arguments: { code, yield_ms: 300 } });
  const id = /^Script (\S+) /.exec((started.content[0] as { text: string }).text)![1]!;
  const asked = now();
  await server.client.callTool({ name: 'code_execution', arguments: { action: 'stop', script: id } });
  return now() - asked;
}

export async function measureStops(ctx: BenchContext): Promise<Row[]> {
  ctx.log('stop latency…');
  const server = await startServer(['--pool', '2']);
  try {
    await poolSettled(server.pid, 2);
    const rounds = ctx.quick ? 1 : ctx.rounds;
    const idle = () => stopOnce(server, 'await sleep(600000)');
    const within = { text: '≤ 500 ms', met: (value: number) => value <= 500 };
    const busy = await interleaved(rounds, () => stopOnce(server, 'for (;;) {}'), idle, 300);
    const native = await interleaved(
      rounds,
      () => stopOnce(server, 'const a = Array.from({ length: 300000 }, (_, i) => "s" + i); for (;;) a.join(",")'),
      idle,
      300,
    );
    return [
      {
        name: 'stop of a busy loop',
        value: busy.subject,
        unit: 'ms',
        floorName: 'stop of an idle script',
        floor: busy.floor,
        goal: within,
      },
      {
        name: 'stop of a loop of long native calls',
        value: native.subject,
        unit: 'ms',
        floorName: 'stop of an idle script',
        floor: native.floor,
        goal: within,
      },
    ];
  } finally {
    await server.close();
  }
}
