/**
 * What reusing a child between one owner's scripts saves (docs/architecture.md, "Script children"): the
 * CPU a one-call script costs the server and its processes, with the defaults against a process
 * per script (`--child-max-scripts 1`) in the same run; sixteen one-call runs at once after the
 * server has been idle, against one such run alone; and the memory of the server and its pool at
 * rest after that.
 */
import { readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { QuickJS } from 'quickjs-wasi';
import { linearMemoryOf, wipe } from '../engine/linear-memory.js';
import { SnapshotRestore } from '../engine/snapshot-restore.js';
import { compileEngine } from '../engine/wasm.js';
import { ENGINE_MAIN } from '../src/script-host/engine-path.js';
import { PACKAGE_ROOT } from '../src/support/package-root.js';
import { startHttpInstance } from './http.js';
import { descendantsRunning, interleaved, memoryOf, sleep, timed } from './measure.js';
import type { BenchContext, Row } from './report.js';
import { runCode, runScript, startServer } from './server.js';
import { memoryOfAll, treeCpuMs, type Memory } from './processes.js';
import { poolSettled } from './settle.js';

const ONE_CALL = 'return (await tools.mark({})).content[0].text';
const CLIENTS = 4;
const AT_ONCE = 16;
/** The idle time before a burst: past the pool's shrink (POOL_SHRINK_AFTER_MS, 10 s). */
const IDLE_MS = 15_000;
const MiB = 1024 * 1024;

export async function measureReuse(ctx: BenchContext): Promise<Row[]> {
  const scripts = ctx.quick ? 20 : 200;
  ctx.log(`CPU per one-call script, ${scripts} scripts from ${CLIENTS} clients, children reused and not…`);
  const reused = await cpuPerScript([], scripts);
  // A process per script costs about 20 times as much: fewer scripts give the same per-script figure.
  const perProcess = await cpuPerScript(['--child-max-scripts', '1'], Math.max(CLIENTS, scripts / 5));
  ctx.log(`${AT_ONCE} one-call runs at once after ${ctx.quick ? 1 : IDLE_MS / 1000} s idle…`);
  const burst = await burstAfterIdle(ctx);
  ctx.log("a reset's restore and wipe, in the last VM's memory and in a new one…");
  const restore = await restoreCost(ctx);
  return [
    {
      name: `CPU per one-call script (server, upstream and script processes; ${CLIENTS} clients over HTTP)`,
      value: reused,
      unit: 'ms',
      floorName: 'the same, a process per script (--child-max-scripts 1)',
      floor: perProcess,
      goal: { text: '≤ 25 ms', met: (value) => value <= 25 },
    },
    {
      name: `${AT_ONCE} one-call runs at once after ${ctx.quick ? 1 : IDLE_MS / 1000} s idle, defaults`,
      value: burst.burst,
      unit: 'ms',
      floorName: 'one such run alone',
      floor: burst.alone,
      goal: { text: '≤ 5 ×, none refused', met: (value, floor) => value <= 5 * floor && burst.refused === 0 },
      note: `${burst.refused} of ${burst.runs} runs refused`,
    },
    {
      name: 'memory of the server and its pool at rest, after the bursts: their own pages, and the shared ones once',
      value: burst.resting.once,
      unit: 'MiB',
      floorName: 'idle node process RSS',
      floor: await idleNodeRss(),
      goal: { text: '≤ 150 MiB', met: (value) => value <= 150 },
      note: `their RSS summed, the node binary's shared pages once per process: ${burst.resting.rssSum.toFixed(1)} MiB`,
    },
    {
      name: "a reset's VM: the prelude snapshot restored into the last VM's memory, wiped, only the 4 KiB blocks that differ",
      value: restore.recycled,
      unit: 'ms',
      floorName: "quickjs-wasi's QuickJS.restore into a new memory, the whole snapshot, and the wipe",
      floor: restore.whole,
      note: 'in this process, each disposed and wiped at once; the pages first touched are what it costs',
    },
  ];
}

/**
 * A reset's VM, made and let go as a child does (engine/snapshot-restore.ts: in the last VM's
 * memory, wiped), against quickjs-wasi's own restore of its module as published, into a new
 * memory each time, and the same wipe; in alternating rounds.
 */
async function restoreCost(ctx: BenchContext): Promise<{ recycled: number; whole: number }> {
  const module = await compileEngine();
  const published = await WebAssembly.compile(readFileSync(new URL(import.meta.resolve('quickjs-wasi/quickjs.wasm'))));
  const bytes = readFileSync(join(PACKAGE_ROOT, 'dist', 'prelude.snapshot'));
  const snapshot = QuickJS.deserializeSnapshot(bytes);
  const ours = new SnapshotRestore(module, bytes);
  const options = { memoryLimit: 64 * MiB };
  const REPEATS = 20;
  const repeat = async (reset: () => Promise<void>): Promise<number> =>
    (await timed(async () => {
      for (let i = 0; i < REPEATS; i++) await reset();
    })) / REPEATS;
  const figures = await interleaved(
    ctx.rounds,
    () =>
      repeat(async () => {
        const vm = await ours.restore(options);
        const memory = linearMemoryOf(vm);
        vm.dispose();
        ours.recycle(memory);
      }),
    () =>
      repeat(async () => {
        const vm = await QuickJS.restore(snapshot, { ...options, wasm: published });
        const memory = linearMemoryOf(vm);
        vm.dispose();
        wipe(memory);
      }),
  );
  return { recycled: figures.subject, whole: figures.floor };
}

/** CPU per script of `scripts` one-call runs from CLIENTS sessions at once, each running its share one after another. */
async function cpuPerScript(flags: string[], scripts: number): Promise<number> {
  const server = await startHttpInstance(['--pool', '2', ...flags]);
  const sessions = await Promise.all(Array.from({ length: CLIENTS }, () => server.session()));
  try {
    await poolSettled(server.pid, 2);
    const before = treeCpuMs(server.pid);
    await Promise.all(
      sessions.map(async (session) => {
        for (let run = 0; run < scripts / CLIENTS; run++) await runCode(session, ONE_CALL);
      }),
    );
    // Children that exited are counted once reaped, in the server's cutime: wait until the pool is still.
    await poolSettled(server.pid, 1);
    return (treeCpuMs(server.pid) - before) / scripts;
  } finally {
    await Promise.all(sessions.map((session) => session.close()));
    await server.close();
  }
}

async function burstAfterIdle(
  ctx: BenchContext,
): Promise<{ burst: number; alone: number; refused: number; runs: number; resting: Memory }> {
  const server = await startServer([]);
  let refused = 0;
  const burst = async (): Promise<void> => {
    const outcomes = await Promise.all(Array.from({ length: AT_ONCE }, () => runScript(server, ONE_CALL)));
    refused += outcomes.filter((outcome) => 'refused' in outcome).length;
  };
  const rounds = ctx.quick ? 1 : 3;
  try {
    await poolSettled(server.pid, 2);
    // A client that has used the server before: its children were reused, so their times are known.
    for (let run = 0; run < 4; run++) await runCode(server, ONE_CALL);
    const figures = await interleaved(
      rounds,
      async () => {
        await sleep(ctx.quick ? 1_000 : IDLE_MS);
        await poolSettled(server.pid, 2);
        return timed(burst);
      },
      async () => {
        await poolSettled(server.pid, 2);
        return timed(() => runCode(server, ONE_CALL));
      },
    );
    await sleep(ctx.quick ? 1_000 : IDLE_MS);
    await poolSettled(server.pid, 2);
    const resting = [server.pid, ...descendantsRunning(server.pid, ENGINE_MAIN)];
    return { burst: figures.subject, alone: figures.floor, refused, runs: AT_ONCE * rounds, resting: memoryOfAll(resting) };
  } finally {
    await server.close();
  }
}

async function idleNodeRss(): Promise<number> {
  const idle = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  await sleep(500);
  const rss = (memoryOf(idle.pid!, 'VmRSS') ?? 0) / MiB;
  idle.kill();
  return rss;
}
