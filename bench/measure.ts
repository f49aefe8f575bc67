import { readFileSync, readdirSync } from 'node:fs';

/** A high-resolution wall clock, comparable across processes on one machine. */
export const now = (): number => performance.timeOrigin + performance.now();

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A field of /proc/<pid>/status in bytes (VmRSS, VmHWM), or null when the process is gone. */
export function memoryOf(pid: number, field: 'VmRSS' | 'VmHWM'): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** Descendants of `pid` whose command line contains `needle`. */
export function descendantsRunning(pid: number, needle: string): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const isDescendant = (candidate: number): boolean => {
    for (let p = parents.get(candidate); p !== undefined && p > 1; p = parents.get(p)) if (p === pid) return true;
    return false;
  };
  return [...parents.keys()].filter((candidate) => {
    if (!isDescendant(candidate)) return false;
    try {
      return readFileSync(`/proc/${candidate}/cmdline`, 'utf8').includes(needle);
    } catch {
      return false;
    }
  });
}

/**
 * Measures `subject` and `floor` in alternating rounds (ABBA), so both see the same machine; the
 * medians of each.
 */
export async function interleaved(
  rounds: number,
  subject: () => Promise<number>,
  floor: () => Promise<number>,
  pauseMs = 0,
): Promise<{ subject: number; floor: number }> {
  const subjects: number[] = [];
  const floors: number[] = [];
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      subjects.push(await subject());
      floors.push(await floor());
    } else {
      floors.push(await floor());
      subjects.push(await subject());
    }
    if (pauseMs > 0) await sleep(pauseMs);
  }
  return { subject: median(subjects), floor: median(floors) };
}

/** The time `work` takes, by the wall clock. */
export async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = now();
  await work();
  return now() - started;
}
