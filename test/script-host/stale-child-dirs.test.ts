/**
 * A killed server's script-child directory (no live process works in it, unchanged for
 * STALE_TEMP_DIR_MS) is removed; a live child's, a new one's and anything not named as ours stay.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CHILD_DIR_PREFIX } from '../../protocol/contract.js';
import { removeStaleChildDirs } from '../../src/script-host/stale-child-dirs.js';
import { STALE_TEMP_DIR_MS } from '../../src/support/stale-temp-dirs.js';
import { makeTempDir } from '../support/temp-dirs.js';

/** A directory `name` in `parent` with a stop file, last changed `ageMs` ago. */
function plant(parent: string, name: string, ageMs: number): string {
  const directory = join(parent, name);
  mkdirSync(directory);
  writeFileSync(join(directory, 'stop'), '');
  const at = (Date.now() - ageMs) / 1000;
  utimesSync(directory, at, at);
  return directory;
}

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

describe.skipIf(process.platform !== 'linux')("stale script children's directories", () => {
  it('removes only ours that no live process works in and that have not changed for STALE_TEMP_DIR_MS', async () => {
    const parent = makeTempDir('stale-children');
    const old = STALE_TEMP_DIR_MS + 60_000;
    plant(parent, `${CHILD_DIR_PREFIX}killed`, old);
    const live = plant(parent, `${CHILD_DIR_PREFIX}live`, old);
    // A child still working there, as a live server's child does.
    const child = spawn('sleep', ['600'], { cwd: live, stdio: 'ignore' });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    stops.push(async () => {
      child.kill('SIGKILL');
      await exited;
    });
    await new Promise<void>((resolve) => child.once('spawn', () => resolve()));
    const fresh = plant(parent, `${CHILD_DIR_PREFIX}fresh`, 1_000);
    const other = plant(parent, 'codemode-other-old', old);

    expect(removeStaleChildDirs(parent)).toEqual([`${CHILD_DIR_PREFIX}killed`]);
    for (const kept of [live, fresh, other]) expect(existsSync(kept)).toBe(true);
  });
});
