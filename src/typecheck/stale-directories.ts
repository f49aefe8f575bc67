/**
 * The compiler's private directories that killed servers left (src/support/stale-temp-dirs.ts):
 * a compiler, its parent gone, exits and takes its socket with it, so a directory of ours with no
 * socket is no live compiler's, and a compiler's start removes it once it is old enough.
 */
import { readdirSync } from 'node:fs';
import { removeStaleTempDirs } from '../support/stale-temp-dirs.js';

/** What every compiler directory's name starts with, in the system's temp directory. */
export const COMPILER_DIRECTORY_PREFIX = 'codemode-typecheck-';

/** The compiler's socket in its directory (a named pipe on Windows, where there is no file to look for). */
export const COMPILER_SOCKET_FILE = 'api.sock';

/** Removes the compiler directories in `parent` that no live compiler uses (this user's only); returns their names. */
export function removeStaleDirectories(parent: string, now: number = Date.now()): string[] {
  return removeStaleTempDirs(
    parent,
    COMPILER_DIRECTORY_PREFIX,
    (directory) => readdirSync(directory).includes(COMPILER_SOCKET_FILE),
    now,
  );
}
