/** What the directory store and its vault share about the files they write. */
import { randomBytes } from 'node:crypto';
import { open, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { StateError } from './state-error.js';

/** Folders and files of the state directory: only the server's user can read them. */
export const DIR_MODE = 0o700;
export const FILE_MODE = 0o600;

/** A fresh hidden name in `folder` for a file written whole before it is moved or linked into place. */
export function tempPathIn(folder: string): string {
  return join(folder, `.${randomBytes(8).toString('hex')}.tmp`);
}

/**
 * Writes `content` whole under a fresh temporary name in `folder`, synced, and gives that name: the
 * caller moves or links it into place (a reader never sees part of it, nor a crash loses it) and
 * removes it after. A write that fails leaves no temporary file.
 */
export async function writeSyncedTemp(folder: string, content: string | Buffer): Promise<string> {
  const temp = tempPathIn(folder);
  const file = await open(temp, 'wx', FILE_MODE);
  try {
    try {
      await file.writeFile(content);
      await file.sync();
    } finally {
      await file.close();
    }
  } catch (error) {
    // The write's own error is what the caller needs; the file it leaves is removed if it can be.
    await unlink(temp).catch(() => {});
    throw error;
  }
  return temp;
}

/**
 * Runs `work` on the state directory `dir`: a file system's failure (a full disk, a directory not
 * ours to write) becomes STATE_UNAVAILABLE, saying what to fix; the store's own refusals pass as they are.
 */
export async function onStateDir<T>(dir: string, part: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof StateError) throw error;
    throw new StateError(
      'STATE_UNAVAILABLE',
      `the state directory ${dir} could not be read or written${part} ` +
        `(${error instanceof Error ? error.message : String(error)}); fix the directory or free space`,
    );
  }
}
