/**
 * What a server and the processes under it use, read from /proc: their CPU, and the memory they
 * hold together.
 */
import { readFileSync, readdirSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ: 100 on Linux). */
const TICKS_PER_S = 100;

export interface Memory {
  /** The processes' private pages, and the pages they share (the node binary's, mostly) counted once. */
  readonly once: number;
  /** Their RSS summed: the shared pages counted in each. */
  readonly rssSum: number;
}

/**
 * What `pids` hold together, in MiB. Summed RSS counts the node binary's pages (~37 MiB) in every
 * process; the machine holds them once. `once` is each one's private pages plus the shared pages
 * of the one that shares most: they all map the same binary and libraries, so that is those pages
 * once (pages shared by only some of them, if any, would be missed).
 */
export function memoryOfAll(pids: readonly number[]): Memory {
  const rollups = pids.map((pid) => readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
  const field = (rollup: string, name: string): number =>
    Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(rollup)?.[1] ?? 0) / 1024;
  const own = rollups.reduce((sum, rollup) => sum + field(rollup, 'Private_Clean') + field(rollup, 'Private_Dirty'), 0);
  const shared = Math.max(0, ...rollups.map((rollup) => field(rollup, 'Shared_Clean') + field(rollup, 'Shared_Dirty')));
  return { once: own + shared, rssSum: rollups.reduce((sum, rollup) => sum + field(rollup, 'Rss'), 0) };
}

/** CPU of `pid` alone, in ms: its own user and system time, not its children's. */
export function ownCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_S;
}

/** CPU of `pid` and every process under it, in ms: their own, and that of their children already reaped. */
export function treeCpuMs(pid: number): number {
  const times = new Map<number, { parent: number; ticks: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // After the name: state, ppid, ..., utime (11), stime, cutime, cstime (0-based from state).
      const ticks = [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index]), 0);
      times.set(Number(entry), { parent: Number(fields[1]), ticks });
    } catch {
      // gone meanwhile
    }
  }
  const under = (candidate: number): boolean => {
    for (let at: number | undefined = candidate; at !== undefined && at > 1; at = times.get(at)?.parent)
      if (at === pid) return true;
    return false;
  };
  let ticks = 0;
  for (const [candidate, { ticks: own }] of times) if (under(candidate)) ticks += own;
  return (ticks * 1000) / TICKS_PER_S;
}
