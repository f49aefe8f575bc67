/**
 * The private directories in the system's temp directory that killed servers left behind. A
 * server that ends by its own shutdown removes what it made there (a script child's directory,
 * the type check's compiler's); one killed outright (SIGKILL: a client's close or a harness that
 * found it slow under load, an OOM killer) cannot. A directory of ours that nothing uses any more
 * and that has not changed for STALE_TEMP_DIR_MS is such a leftover, and the next server removes it.
 */
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * 10 minutes: how long a directory nothing uses is left alone. Whatever makes one uses it within
 * seconds (a child's start, a compiler's socket), and a directory changes when it does: one older
 * than this, unused, is a killed server's.
 */
export const STALE_TEMP_DIR_MS = 10 * 60 * 1000;

/**
 * Removes the directories in `parent` named `prefix…` that are this user's, unchanged for
 * STALE_TEMP_DIR_MS and not `inUse`; returns their names. Nothing on Windows, where a killed
 * process's directory is not told apart this way.
 */
export function removeStaleTempDirs(
  parent: string,
  prefix: string,
  inUse: (directory: string) => boolean,
  now: number = Date.now(),
): string[] {
  if (process.platform === 'win32') return [];
  const removed: string[] = [];
  for (const name of readdirSync(parent)) {
    if (!name.startsWith(prefix)) continue;
    const directory = join(parent, name);
    try {
      const stat = statSync(directory);
      if (!stat.isDirectory() || stat.uid !== process.getuid?.() || now - stat.mtimeMs < STALE_TEMP_DIR_MS) continue;
      if (inUse(directory)) continue;
      rmSync(directory, { recursive: true, force: true });
      removed.push(name);
    } catch {
      // Gone meanwhile (another server's start removed it), or not ours to read: nothing to do.
    }
  }
  return removed;
}
