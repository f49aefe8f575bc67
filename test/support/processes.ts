import { readdirSync, readFileSync } from 'node:fs';
import { until } from './waiting.js';

/**
 * Every live descendant of `pid` (children, their children, ...), read from /proc (Linux).
 * Zombies count: a child that exited but was never reaped was still not cleaned up.
 */
export function childPidsOf(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const parent = parentOf(Number(entry));
    if (parent === undefined) continue;
    children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
  }
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** Field 22 of /proc/<pid>/stat (start time in clock ticks), or undefined when the process is gone or a zombie. */
export function startTimeOf(pid: number): string | undefined {
  const fields = statFieldsOf(pid);
  return fields === undefined || fields[0] === 'Z' ? undefined : fields[19];
}

/** The processes whose parent is `pid`. */
export function directChildrenOf(pid: number): number[] {
  return childPidsOf(pid).filter((child) => parentOf(child) === pid);
}

/** Waits until `pid` has no descendants left (the test's timeout is the bound); returns those left: none. */
export async function waitForNoChildren(pid: number): Promise<number[]> {
  await until(
    `process ${pid}'s descendants to be gone`,
    () => childPidsOf(pid).length === 0,
    () => `alive: ${childPidsOf(pid).join(', ')}`,
  );
  return [];
}

/**
 * The fields of /proc/<pid>/stat after the command name, from the state (field 3: `Z` for a
 * zombie) on; undefined when the process is gone.
 */
export function statFieldsOf(pid: number): string[] | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces or parentheses itself.
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** Whether `pid` is running: neither gone nor a zombie. */
export function isRunning(pid: number): boolean {
  const fields = statFieldsOf(pid);
  return fields !== undefined && fields[0] !== 'Z';
}

/** The parent pid, or undefined when the process is already gone. */
function parentOf(pid: number): number | undefined {
  const fields = statFieldsOf(pid);
  return fields === undefined ? undefined : Number(fields[1]);
}

/** The command line of `pid`, its arguments joined by spaces; undefined when the process is gone. */
export function commandLineOf(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return undefined;
  }
}

/**
 * The descendants of `pid` running the script `script` as `node <script> ...`: matched on the end
 * of argv[1], so a wrapper given the script as an argument is not taken for it.
 */
export function descendantsRunning(pid: number, script: string): number[] {
  return childPidsOf(pid).filter((child) => {
    try {
      return readFileSync(`/proc/${child}/cmdline`, 'utf8').split('\0')[1]?.endsWith(script) === true;
    } catch {
      return false;
    }
  });
}
