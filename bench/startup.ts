/**
 * From spawning the server to the first answer of a one-call run, against spawning the upstream
 * and calling it directly: with the server's compile cache written by an earlier start (every
 * start but the first after an install or an upgrade), and without one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { interleaved, now } from './measure.js';
import { atMost, type BenchContext, type Row } from './report.js';
import { runCode, startDirect, startServer, type Connected } from './server.js';

/** Past the server's write of its compile cache (1 s into serving, src/main.ts). */
const COMPILE_CACHE_WRITTEN_MS = 2_000;

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

/** A start that finds no compile cache: its cache directory is new and empty (it writes none, since it ends within a second). */
async function withoutCompileCache(): Promise<Connected> {
  const home = mkdtempSync(join(tmpdir(), 'codemode-bench-cache-'));
  const server = await startServer([], { XDG_CACHE_HOME: home });
  return {
    ...server,
    close: async () => {
      await server.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

export async function measureStartup(ctx: BenchContext): Promise<Row[]> {
  ctx.log('spawn to first answer…');
  // One start that runs long enough to write the compile cache the measured starts read.
  const writer = await startServer([]);
  await runCode(writer, ONE_CALL);
  await new Promise((resolve) => setTimeout(resolve, COMPILE_CACHE_WRITTEN_MS));
  await writer.close();
  const figures = await interleaved(
    ctx.quick ? 1 : ctx.rounds,
    () =>
      spawnToAnswer(
        () => startServer([]),
        (server) => runCode(server, ONE_CALL),
      ),
    () => spawnToAnswer(startDirect, (direct) => direct.client.callTool({ name: 'echo', arguments: { text: 'x' } })),
    300,
  );
  const cold = await interleaved(
    ctx.quick ? 1 : ctx.rounds,
    () => spawnToAnswer(withoutCompileCache, (server) => runCode(server, ONE_CALL)),
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
    {
      name: 'spawn → first answer, no compile cache yet (the first start after an install)',
      value: cold.subject,
      unit: 'ms',
      floorName: 'spawn the upstream → first direct answer',
      floor: cold.floor,
    },
  ];
}
