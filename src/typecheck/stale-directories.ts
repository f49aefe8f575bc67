/**
 * The compiler's private directories that a killed server left behind. A server that ends by its
 * own shutdown removes its compiler's directory (compiler-process.ts); one killed outright
 * (SIGKILL: a client's close that found it slow under load, an OOM killer) cannot, and its
 * compiler, its parent gone, exits and takes its socket with it. So a directory of ours with no
 * socket that has not changed for STALE_DIRECTORY_MS is no live compiler's, and a compiler's
 * start removes it.
 */
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** What every compiler directory's name starts with, in the system's temp directory. */
export const COMPILER_DIRECTORY_PREFIX = 'codemode-typecheck-';

/** The compiler's socket in its directory (a named pipe on Windows, where there is no file to look for). */
export const COMPILER_SOCKET_FILE = 'api.sock';

/**
 * 10 minutes: how long a directory with no socket is left alone. A compiler makes its socket
 * within its start's time limit (seconds), and a directory changes when it does: one older than
 * this, socket-less, is a killed server's.
 */
export const STALE_DIRECTORY_MS = 10 * 60 * 1000;

/** Removes the compiler directories in `parent` that no live compiler uses (this user's only); returns their names. */
export function removeStaleDirectories(parent: string, now: number = Date.now()): string[] {
  if (process.platform === 'win32') return [];
  const removed: string[] = [];
  for (const name of readdirSync(parent)) {
    if (!name.startsWith(COMPILER_DIRECTORY_PREFIX)) continue;
    const directory = join(parent, name);
    try {
      const stat = statSync(directory);
      if (!stat.isDirectory() || stat.uid !== process.getuid?.() || now - stat.mtimeMs < STALE_DIRECTORY_MS) continue;
      if (readdirSync(directory).includes(COMPILER_SOCKET_FILE)) continue;
      rmSync(directory, { recursive: true, force: true });
      removed.push(name);
    } catch {
      // Gone meanwhile (another server's start removed it), or not ours to read: nothing to do.
    }
  }
  return removed;
}
