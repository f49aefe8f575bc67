import { readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';

import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../support/temp-dirs.js';

const parentProgram = new URL('../fixtures/isolate-parent.mjs', import.meta.url).pathname;
const dirs: string[] = [];

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Where each descriptor of `pid` points. */
function descriptorsOf(pid: number): string[] {
  return readdirSync(`/proc/${pid}/fd`).map((fd) => {
    try {
      return readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      return '(gone)';
    }
  });
}

describe("a script's child", () => {
  it('holds none of the descriptors its server inherited, only its stdio, its channel and its own', async () => {
    const dir = makeTempDir('fds');
    dirs.push(dir);
    const marker = join(dir, 'inherited-by-the-server');
    writeFileSync(marker, 'secret');
    // The shell opens descriptor 100 without close-on-exec, as a careless parent of the server
    // might. (Node marks inherited descriptors up to 15 close-on-exec itself; past them, nothing does.)
    const server = execa('bash', ['-c', `exec 100<"${marker}"; exec "${process.execPath}" "${parentProgram}"`], {
      stdout: 'pipe',
      reject: false,
    });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        server.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString()));
        server.once('exit', () => reject(new Error('the stand-in server exited early')));
      });
      const { pids } = JSON.parse(line) as { pids: number[] };
      expect(descriptorsOf(server.pid!)).toContain(marker);
      for (const pid of pids) expect(descriptorsOf(pid)).not.toContain(marker);
    } finally {
      server.kill('SIGKILL');
      await server;
    }
  });
});
