import { closeSync, readdirSync, readFileSync } from 'node:fs';

/** O_CLOEXEC as /proc/<pid>/fdinfo shows it (octal flags). */
const O_CLOEXEC = 0o2000000;

/** The child's own channel to the parent: the one descriptor past stdio it keeps. */
const CHANNEL_FD = 3;

/**
 * Closes every descriptor past stdio and the channel that this process inherited, so a script's
 * child holds nothing of the server's but its pipes: the server may have been started with
 * descriptors left open by whatever started it, and spawn passes those on. Descriptors Node opened
 * for itself are close-on-exec, and inherited ones are not (they survived the exec), which is how
 * they are told apart. Linux only: elsewhere there is no /proc to read, and nothing is closed.
 */
export function closeInheritedFds(): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc/self/fd');
  } catch {
    return [];
  }
  const closed: number[] = [];
  for (const entry of entries) {
    const fd = Number(entry);
    if (!Number.isInteger(fd) || fd <= CHANNEL_FD) continue;
    let flags: number;
    try {
      const info = readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8');
      flags = parseInt(/^flags:\s*([0-7]+)/m.exec(info)?.[1] ?? '', 8);
    } catch {
      continue; // gone already (the directory listing's own descriptor)
    }
    if (Number.isNaN(flags) || (flags & O_CLOEXEC) !== 0) continue;
    try {
      closeSync(fd);
      closed.push(fd);
    } catch {
      // closed meanwhile
    }
  }
  return closed;
}
