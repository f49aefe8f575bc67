/**
 * Script children's private directories that killed servers left (src/support/stale-temp-dirs.ts).
 * A child's directory is its working directory, and a child whose parent is gone removes its own;
 * one killed with its server (a process group's SIGKILL) cannot. So a directory of ours that no
 * live process works in is a leftover, and the first child a server spawns removes it once it is
 * old enough. Where the system does not show a process's working directory (no /proc), nothing is
 * removed: a live child's directory can't be told apart there.
 */
import { readdirSync, readlinkSync } from 'node:fs';
import { CHILD_DIR_PREFIX } from '../../protocol/contract.js';
import { removeStaleTempDirs } from '../support/stale-temp-dirs.js';

/**
 * Removes the children's directories in `parent` that no live process works in (this user's
 * only); returns their names. /proc is read only when there is an old directory to ask about.
 */
export function removeStaleChildDirs(parent: string, now: number = Date.now()): string[] {
  let cwds: Set<string> | undefined;
  let read = false;
  const inUse = (directory: string): boolean => {
    if (!read) {
      cwds = workingDirectories();
      read = true;
    }
    // Where there is no /proc, every directory counts as in use.
    return cwds === undefined || cwds.has(directory);
  };
  return removeStaleTempDirs(parent, CHILD_DIR_PREFIX, inUse, now);
}

/** Every live process's working directory that this user may read, from /proc; undefined where there is no /proc. */
function workingDirectories(): Set<string> | undefined {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  const cwds = new Set<string>();
  for (const pid of pids) {
    try {
      cwds.add(readlinkSync(`/proc/${pid}/cwd`));
    } catch {
      // Exited meanwhile, or another user's: not one of our children.
    }
  }
  return cwds;
}
