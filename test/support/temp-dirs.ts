/**
 * Temporary directories for tests, each removed when its test file is done (setup.ts,
 * a setup file of every test file): a test run leaves nothing in the system's temp directory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

/** A fresh directory `<tmp>/codemode-<name>-XXXXXX`, removed after this test file. */
export function makeTempDir(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `codemode-${name}-`));
  made.push(dir);
  return dir;
}

/** Removes every directory makeTempDir made in this test file. */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}
