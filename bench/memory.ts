/** An idle pooled child's memory against an idle Node process's. */
import { spawn } from 'node:child_process';
import { ENGINE_MAIN } from '../src/script-host/engine-path.js';
import { descendantsRunning, median, memoryOf, sleep } from './measure.js';
import type { BenchContext, Row } from './report.js';
import { startServer } from './server.js';
import { poolSettled } from './settle.js';

const MiB = 1024 * 1024;

export async function measureMemory(ctx: BenchContext): Promise<Row[]> {
  ctx.log('idle pooled child RSS…');
  const server = await startServer(['--pool', '2']);
  let pooled: number;
  try {
    await poolSettled(server.pid, 2);
    pooled = median(descendantsRunning(server.pid, ENGINE_MAIN).map((pid) => memoryOf(pid, 'VmRSS') ?? 0)) / MiB;
  } finally {
    await server.close();
  }
  const idleNode = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  await sleep(500);
  const nodeRss = (memoryOf(idleNode.pid!, 'VmRSS') ?? 0) / MiB;
  idleNode.kill();
  return [
    {
      name: 'idle pooled child RSS',
      value: pooled,
      unit: 'MiB',
      floorName: 'idle node process RSS',
      floor: nodeRss,
      goal: { text: '≤ floor + 25 MiB', met: (v, f) => v <= f + 25 },
    },
  ];
}
