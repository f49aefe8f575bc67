/**
 * A stdio upstream runs as the leader of a process group of its own (`detached: true`), so what it
 * starts (npx's npm, a shell, the real server) is in the group and ends with it. The SDK's stdio
 * transport signals only its direct child, so a server behind `npx -y` outlived a restart.
 * Process groups are POSIX; on Windows only the direct child is signalled.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** 1 s: after an upstream's stdin is closed, how long its process group has to end by itself before SIGTERM. */
export const GROUP_TERM_AFTER_MS = 1_000;

/** 1.5 s: after SIGTERM, how long the process group has before SIGKILL. */
export const GROUP_KILL_AFTER_MS = 1_500;

/** How often a group is looked at while it is given time to end: a grandchild's exit sends us no event. */
const GROUP_POLL_MS = 25;

/** Whether upstreams get process groups of their own here. */
export const PROCESS_GROUPS = process.platform !== 'win32';

/**
 * Whether any process of the group is left. A zombie (ended, waiting for its parent to reap it)
 * doesn't count: a grandchild whose parent died is reaped by init, and an init that reaps late, or
 * never (a container's PID 1 that isn't one), would otherwise hold every wait to its bound.
 * Zombies are told apart on Linux (/proc); elsewhere any process of the group counts.
 */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return LINUX_PROC ? hasLiveMember(pgid) : true;
}

const LINUX_PROC = process.platform === 'linux' && existsSync('/proc/self/stat');

/** Whether /proc lists a process of the group that isn't a zombie. */
function hasLiveMember(pgid: number): boolean {
  for (const entry of readdirSync('/proc')) {
    if (entry.charCodeAt(0) < 0x30 || entry.charCodeAt(0) > 0x39) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // After the command name (in parentheses, which may hold anything): state, ppid, pgrp, ...
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z' && state !== 'X') return true;
  }
  return false;
}

/** Sends `signal` to every process of the group; false when none was left. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * True once no process of the group is left, false when `ms` passed first. Its timers hold the
 * process up, unlike the SDK's unref()'d ones: the SDK waits on its child's 'close', a handle
 * that holds the process while the child lives, but a grandchild gives us no handle, and a
 * process that exited meanwhile (`codemode-mcp tools` while an upstream fails) would leave the
 * group running. Each wait is bounded, and ends as soon as the group is gone.
 */
export async function waitForGroupGone(pgid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (groupAlive(pgid)) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, GROUP_POLL_MS));
  }
  return true;
}

/**
 * Ends what is left of the group: `graceMs` to end by itself, then SIGTERM, GROUP_KILL_AFTER_MS,
 * then SIGKILL. Resolves when the group is gone or has been sent SIGKILL.
 */
export async function endGroup(pgid: number, graceMs: number): Promise<void> {
  if (await waitForGroupGone(pgid, graceMs)) return;
  signalGroup(pgid, 'SIGTERM');
  if (await waitForGroupGone(pgid, GROUP_KILL_AFTER_MS)) return;
  signalGroup(pgid, 'SIGKILL');
  // SIGKILL can't be ignored; give the kernel and the reapers a moment, no more.
  await waitForGroupGone(pgid, GROUP_KILL_AFTER_MS);
}

/** A stdio upstream's process group, as a shutdown sweeps it. */
export interface LiveGroup {
  readonly pgid: number;
  /** The upstream's name in the config. */
  readonly name: string;
}

/**
 * The process groups of stdio upstreams that may still have a process, from spawn until the group
 * has ended. One per hub (src/upstream/hub.ts), not per process: a shutdown sweeps what is left of
 * its own hub's groups on its own clock (src/support/process-tree.ts), never those of another
 * server serving in the same process (a test's).
 */
export class LiveGroups {
  private readonly groups = new Map<number, string>();

  add(pgid: number, name: string): void {
    this.groups.set(pgid, name);
  }

  delete(pgid: number): void {
    this.groups.delete(pgid);
  }

  list(): LiveGroup[] {
    return [...this.groups].map(([pgid, name]) => ({ pgid, name }));
  }
}
