/**
 * Calls through a script against the same calls made directly with the SDK's client, round by
 * round: a first run on a fresh server, a paced one-call run, sequential calls, Promise.all, and
 * a 1 MB result returned to the client.
 */
import { interleaved, timed } from './measure.js';
import { atMost, type BenchContext, type Row } from './report.js';
import { runCode, startDirect, startServer, type Connected } from './server.js';
import { poolSettled } from './settle.js';

const ONE_CALL = 'return (await tools.echo({ text: "x" })).content[0].text';
/** 1 MB of text: a value of 1 MiB would be past the value cap with its quotes. */
const MB_CHARS = 1_000_000;

async function directCall(direct: Connected): Promise<number> {
  return timed(() => direct.client.callTool({ name: 'echo', arguments: { text: 'x' } }));
}

export async function measureCalls(ctx: BenchContext): Promise<Row[]> {
  const calls = ctx.quick ? 100 : 1_000;
  const direct = await startDirect();
  const rows: Row[] = [];
  try {
    ctx.log('first run on a fresh server, pool warm…');
    const first = await interleaved(
      ctx.quick ? 1 : ctx.rounds,
      async () => {
        const server = await startServer(['--pool', '2']);
        try {
          await poolSettled(server.pid, 2);
          return await timed(() => runCode(server, ONE_CALL));
        } finally {
          await server.close();
        }
      },
      () => directCall(direct),
    );
    rows.push({
      name: 'first run on a fresh server, pool warm',
      value: first.subject,
      unit: 'ms',
      floorName: 'one direct call',
      floor: first.floor,
    });

    const server = await startServer(['--pool', '2']);
    try {
      await poolSettled(server.pid, 2);
      ctx.log('paced one-call runs…');
      const paced = await interleaved(
        ctx.rounds,
        () => timed(() => runCode(server, ONE_CALL)),
        () => directCall(direct),
        300,
      );
      rows.push({
        name: 'a paced run making one call',
        value: paced.subject,
        unit: 'ms',
        floorName: 'one direct call',
        floor: paced.floor,
        goal: atMost(4),
      });

      ctx.log(`${calls} sequential calls…`);
      const sequential = await interleaved(
        ctx.rounds,
        () => timed(() => runCode(server, `for (let i = 0; i < ${calls}; i++) await tools.echo({ text: "x" })`)),
        () =>
          timed(async () => {
            for (let i = 0; i < calls; i++) await direct.client.callTool({ name: 'echo', arguments: { text: 'x' } });
          }),
        300,
      );
      rows.push({
        name: `${calls} sequential calls in a script`,
        value: sequential.subject,
        unit: 'ms',
        floorName: `${calls} sequential direct calls`,
        floor: sequential.floor,
        goal: atMost(1.5),
      });

      ctx.log(`${calls} calls through Promise.all…`);
      const parallel = await interleaved(
        ctx.rounds,
        () =>
          timed(() => runCode(server, `await Promise.all(Array.from({ length: ${calls} }, () => tools.echo({ text: "x" })))`)),
        () =>
          timed(() =>
            Promise.all(Array.from({ length: calls }, () => direct.client.callTool({ name: 'echo', arguments: { text: 'x' } }))),
          ),
        300,
      );
      rows.push({
        name: `${calls} calls through Promise.all`,
        value: parallel.subject,
        unit: 'ms',
        floorName: `${calls} direct calls through Promise.all`,
        floor: parallel.floor,
        goal: atMost(1.3),
      });

      ctx.log('a 1 MB result returned…');
      const value = await interleaved(
        ctx.rounds,
        () => timed(() => runCode(server, `return (await tools.big({ chars: ${MB_CHARS} })).content[0].text`)),
        () => timed(() => direct.client.callTool({ name: 'big', arguments: { chars: MB_CHARS } })),
        300,
      );
      rows.push({
        name: 'a 1 MB result returned as the value',
        value: value.subject,
        unit: 'ms',
        floorName: 'the same 1 MB result, direct',
        floor: value.floor,
        goal: atMost(1.5),
      });
    } finally {
      await server.close();
    }
  } finally {
    await direct.close();
  }
  return rows;
}
