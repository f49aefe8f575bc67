import { existsSync } from 'node:fs';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { statFieldsOf } from '../support/processes.js';
import { until } from '../support/waiting.js';

const parentProgram = new URL('../fixtures/isolate-parent.mjs', import.meta.url).pathname;

/** Alive and not a zombie. */
function isRunning(pid: number): boolean {
  const fields = statFieldsOf(pid);
  return fields !== undefined && fields[0] !== 'Z';
}

describe('a script child whose server is killed', () => {
  // How soon depends on the machine's load: the test waits for
  // the exits and the removals, its timeout the only bound.
  it('exits by itself, computing, idle or ended and held, and removes its directory', async () => {
    const parent = execa('node', [parentProgram], { stdout: 'pipe', reject: false });
    const line = await new Promise<string>((resolve, reject) => {
      parent.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString()));
      parent.once('exit', () => reject(new Error('the stand-in server exited early')));
    });
    const { pids, dirs } = JSON.parse(line) as { pids: number[]; dirs: string[] };
    expect(pids.every(isRunning)).toBe(true);

    parent.kill('SIGKILL');
    await parent;
    await until(
      'the orphaned script children to exit and remove their directories',
      () => !pids.some(isRunning) && !dirs.some((dir) => existsSync(dir)),
      () =>
        `running: ${pids.filter(isRunning).join(', ')}; directories left: ${dirs.filter((dir) => existsSync(dir)).join(', ')}`,
    );
  });
});
