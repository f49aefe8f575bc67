/** From spawning the server to the first answer of a one-call run, against spawning the upstream and calling it directly. */
import { interleaved, now } from './measure.js';
import { atMost, type BenchContext, type Row } from './report.js';
import { runCode, startDirect, startServer, type Connected } from './server.js';

const ONE_CALL = 'return (await tools.echo({ text: "x" })).content[0].text';

/** Spawn to answer, by the client's clock; the close is not counted. */
async function spawnToAnswer(start: () => Promise<Connected>, ask: (connected: Connected) => Promise<unknown>): Promise<number> {
  const started = now();
  const connected = await start();
  try {
    await ask(connected);
    return now() - started;
  } finally {
    await connected.close();
  }
}

export async function measureStartup(ctx: BenchContext): Promise<Row[]> {
  ctx.log('spawn to first answer…');
  const figures = await interleaved(
    ctx.quick ? 2 : ctx.rounds,
    () =>
      spawnToAnswer(
        () => startServer([]),
        (server) => runCode(server, ONE_CALL),
      ),
    () => spawnToAnswer(startDirect, (direct) => direct.client.callTool({ name: 'echo', arguments: { text: 'x' } })),
    300,
  );
  return [
    {
      name: 'spawn → first answer of a one-call run',
      value: figures.subject,
      unit: 'ms',
      floorName: 'spawn the upstream → first direct answer',
      floor: figures.floor,
      goal: atMost(1.5),
    },
  ];
}
