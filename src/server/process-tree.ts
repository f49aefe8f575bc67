/**
 * Ending every process this server started, within the time an MCP client gives it.
 *
 * Closing an upstream ends the process the server spawned. With `npx -y some-server` that is npm,
 * and the real server is npm's grandchild: one that ignores its stdin's end (server-everything
 * does) outlives npm, re-parented away from us. And a client that closed our stdin sends SIGTERM
 * 2 s later and SIGKILL 2 s after that (the SDK's stdio client does), so the SDK's own gentle
 * close of each upstream (2 s, SIGTERM, 2 s, SIGKILL) would have us killed mid-shutdown, leaving
 * those processes behind. So a shutdown notes the whole tree first, asks everything to end, and
 * escalates on the whole tree by its own, shorter clock.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** 1 s into a shutdown: every process of the tree still alive gets SIGTERM. */
export const SHUTDOWN_TERM_AFTER_MS = 1_000;

/** 2.5 s into a shutdown: every process of the tree still alive gets SIGKILL; well before a client's SIGKILL at 4 s. */
export const SHUTDOWN_KILL_AFTER_MS = 2_500;

/** A process, told apart from a later one that reuses its pid by when it started. */
export interface TreeProcess {
  readonly pid: number;
  readonly startedAt: string;
  readonly command: string;
}

/**
 * Runs `close` (which asks everything to end), and ends by signal whatever of this process's
 * tree, as it was before, outlives it: SIGTERM at SHUTDOWN_TERM_AFTER_MS, SIGKILL at
 * SHUTDOWN_KILL_AFTER_MS, counted from the start. Logs each process it had to signal.
 */
export async function closeLeavingNoProcess(close: () => Promise<void>, log: (line: string) => void): Promise<void> {
  const started = Date.now();
  const tree = await descendantsOf(process.pid);
  let failure: { error: unknown } | undefined;
  const closed = close().catch((error: unknown) => void (failure = { error }));

  let alive = tree;
  const elapsed = (): number => Date.now() - started;
  for (const [at, signal] of [
    [SHUTDOWN_TERM_AFTER_MS, 'SIGTERM'],
    [SHUTDOWN_KILL_AFTER_MS, 'SIGKILL'],
  ] as const) {
    const settled = await settlesWithin(closed, at - elapsed());
    alive = await stillAlive(alive);
    if (settled) {
      // `close` is done: what is left was re-parented away (an npx server's real process, say).
      if (alive.length === 0) break;
      await delay(at - elapsed());
      alive = await stillAlive(alive);
    }
    for (const leftover of alive) {
      log(`codemode-mcp: ${signal} to process ${leftover.pid} (${leftover.command}), still running ${at / 1000} s into shutdown`);
      sendSignal(leftover.pid, signal);
    }
  }
  await closed;
  if (failure !== undefined) throw failure.error;
}

/**
 * Every live descendant of `root` (children, their children, ...), read with `ps`, which Linux
 * and macOS both have. Empty where `ps` is missing (Windows): there nothing is escalated.
 */
export async function descendantsOf(root: number): Promise<TreeProcess[]> {
  const table = await processTable();
  const byParent = new Map<number, ProcessRow[]>();
  for (const row of table) byParent.set(row.ppid, [...(byParent.get(row.ppid) ?? []), row]);
  const found: TreeProcess[] = [];
  const queue = [root];
  for (let parent = queue.shift(); parent !== undefined; parent = queue.shift()) {
    for (const child of byParent.get(parent) ?? []) {
      found.push({ pid: child.pid, startedAt: child.startedAt, command: child.command });
      queue.push(child.pid);
    }
  }
  return found;
}

async function stillAlive(noted: readonly TreeProcess[]): Promise<TreeProcess[]> {
  if (noted.length === 0) return [];
  const live = new Map((await processTable()).map((row) => [row.pid, row]));
  // A zombie has ended; only its parent's wait is missing.
  return noted.filter((candidate) => live.get(candidate.pid)?.startedAt === candidate.startedAt && !live.get(candidate.pid)?.zombie);
}

/** 64 MiB: room for `ps` on a machine with very many processes with long command lines. */
const PS_MAX_BUFFER_BYTES = 64 * 1024 * 1024;

interface ProcessRow {
  readonly pid: number;
  readonly ppid: number;
  readonly zombie: boolean;
  readonly startedAt: string;
  readonly command: string;
}

/** Where `ps` is, when PATH doesn't say (a client may start us with a bare environment). */
const PS_PATHS = ['ps', '/bin/ps', '/usr/bin/ps'];

/** `ps -A -o pid=,ppid=,stat=,lstart=,args=`: lstart is always five words ("Mon Jan  1 10:00:00 2024"). */
async function processTable(): Promise<ProcessRow[]> {
  let stdout: string | undefined;
  for (const ps of PS_PATHS) {
    try {
      ({ stdout } = await run(ps, ['-A', '-o', 'pid=,ppid=,stat=,lstart=,args='], {
        env: { ...process.env, LC_ALL: 'C' },
        maxBuffer: PS_MAX_BUFFER_BYTES,
      }));
      break;
    } catch {
      // Not there, or not this kind of ps: try the next.
    }
  }
  const rows: ProcessRow[] = [];
  for (const line of (stdout ?? '').split('\n')) {
    const words = line.trim().split(/\s+/);
    if (words.length < 8) continue;
    const [pid, ppid, stat, ...rest] = words;
    rows.push({
      pid: Number(pid),
      ppid: Number(ppid),
      zombie: stat!.startsWith('Z'),
      startedAt: rest.slice(0, 5).join(' '),
      command: rest.slice(5).join(' '),
    });
  }
  return rows;
}

/** Whether `promise` settles within `ms` (a timer that keeps the process up meanwhile, as shutdown must). */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const done = await Promise.race([promise.then(() => true), new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, ms))))]);
  clearTimeout(timer);
  return done;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

function sendSignal(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Gone already.
  }
}
