/**
 * A killed server's compiler directory (no socket, unchanged for STALE_TEMP_DIR_MS) is removed
 * when a compiler starts; a live compiler's (its socket there) and a starting one's (changed
 * lately) are left, as is anything not named as ours.
 */
import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CompilerProcess } from '../../src/typecheck/compiler-process.js';
import {
  COMPILER_DIRECTORY_PREFIX,
  COMPILER_SOCKET_FILE,
  removeStaleDirectories,
} from '../../src/typecheck/stale-directories.js';
import { STALE_TEMP_DIR_MS } from '../../src/support/stale-temp-dirs.js';
import { makeTempDir } from '../support/temp-dirs.js';

/** A directory `name` in `parent` holding `files`, last changed `ageMs` ago. */
function plant(parent: string, name: string, files: readonly string[], ageMs: number): string {
  const directory = join(parent, name);
  mkdirSync(join(directory, 'catalog-1'), { recursive: true });
  for (const file of files) writeFileSync(join(directory, file), '');
  const at = (Date.now() - ageMs) / 1000;
  utimesSync(directory, at, at);
  return directory;
}

const started: CompilerProcess[] = [];
afterEach(async () => {
  for (const compiler of started.splice(0)) await compiler.kill(new Error('the test is over'));
});

describe.skipIf(process.platform === 'win32')('stale compiler directories', () => {
  it('removes only ours that have no socket and have not changed for STALE_TEMP_DIR_MS', () => {
    const parent = makeTempDir('stale-parent');
    const old = STALE_TEMP_DIR_MS + 60_000;
    plant(parent, `${COMPILER_DIRECTORY_PREFIX}killed`, ['guest-globals.d.ts'], old);
    const live = plant(parent, `${COMPILER_DIRECTORY_PREFIX}live`, [COMPILER_SOCKET_FILE], old);
    const starting = plant(parent, `${COMPILER_DIRECTORY_PREFIX}starting`, [], 1_000);
    const other = plant(parent, 'codemode-other-old', [], old);
    writeFileSync(join(parent, `${COMPILER_DIRECTORY_PREFIX}a-file`), '');

    expect(removeStaleDirectories(parent)).toEqual([`${COMPILER_DIRECTORY_PREFIX}killed`]);
    for (const kept of [live, starting, other, join(parent, `${COMPILER_DIRECTORY_PREFIX}a-file`)]) {
      expect(existsSync(kept)).toBe(true);
    }
  });

  it("a compiler's start removes a killed server's directory from the system's temp directory", async () => {
    const killed = plant(
      tmpdir(),
      `${COMPILER_DIRECTORY_PREFIX}test-killed-${process.pid}`,
      ['guest-globals.d.ts'],
      STALE_TEMP_DIR_MS + 60_000,
    );
    const compiler = await CompilerProcess.start({ memoryMaxBytes: 256 * 1024 * 1024, timeLimitMs: 60_000 });
    started.push(compiler);
    expect(existsSync(killed)).toBe(false);
    expect(existsSync(join(compiler.directory, COMPILER_SOCKET_FILE))).toBe(true);
  });
});
