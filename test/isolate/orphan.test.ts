import { existsSync } from 'node:fs';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { statFieldsOf } from '../support/processes.js';

const parentProgram = new URL('../fixtures/isolate-parent.mjs', import.meta.url).pathname;

/** Alive and not a zombie. */
function isRunning(pid: number): boolean {
  const fields = statFieldsOf(pid);
  return fields !== undefined && fields[0] !== 'Z';
}

describe('a script child whose server is killed', () => {
  it('exits by itself within a second, computing, idle or ended and held, and removes its directory', async () => {
    const parent = execa('node', [parentProgram], { stdout: 'pipe', reject: false });
    const line = await new Promise<string>((resolve, reject) => {
      parent.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString()));
      parent.once('exit', () => reject(new Error('the stand-in server exited early')));
    });
    const { pids, dirs } = JSON.parse(line) as { pids: number[]; dirs: string[] };
    expect(pids.every(isRunning)).toBe(true);

    parent.kill('SIGKILL');
    await parent;
    const killedAt = Date.now();
    while (pids.some(isRunning) && Date.now() - killedAt < 1_000) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(pids.filter(isRunning)).toEqual([]);
    expect(dirs.filter((dir) => existsSync(dir))).toEqual([]);
  });
});
