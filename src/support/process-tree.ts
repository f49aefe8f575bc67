/**
 * Ending every process this server started, within the time an MCP client gives it.
 *
 * A client that closed our stdin sends SIGTERM 2 s later and SIGKILL 2 s after that (the SDK's
 * stdio client does). A shutdown stops the scripts first, then closes the upstreams, each of which
 * ends its own process group (src/support/process-group.ts: stdin closed, 1 s, SIGTERM, 1.5 s,
 * SIGKILL); scripts that are slow to stop would push that past the client's patience. So the
 * shutdown also keeps its own, shorter clock on every process group of its hub's upstreams,
 * counted from its start (only its own hub's: a test serves several servers in one process). Script processes need no sweep: each is our direct child, killed by its runner after the
 * stop grace, and each exits by itself when we are gone.
 */
import { groupAlive, signalGroup, type LiveGroups } from './process-group.js';
import { Logger, type Log } from './log.js';
import { pause, settleWithin } from './settle.js';

/** 1 s into a shutdown: every upstream process group with a process left gets SIGTERM. */
export const SHUTDOWN_TERM_AFTER_MS = 1_000;

/** 2.5 s into a shutdown: every upstream process group with a process left gets SIGKILL; well before a client's SIGKILL at 4 s. */
export const SHUTDOWN_KILL_AFTER_MS = 2_500;

/**
 * Runs `close` (which asks everything to end), and signals whatever process group of `groups` (the
 * closing hub's) outlives it: SIGTERM at SHUTDOWN_TERM_AFTER_MS, SIGKILL at SHUTDOWN_KILL_AFTER_MS,
 * counted from the start. Logs each group it had to signal.
 */
export async function closeLeavingNoProcess(close: () => Promise<void>, log: Log, groups: LiveGroups): Promise<void> {
  const started = Date.now();
  let failure: { error: unknown } | undefined;
  const closed = close().catch((error: unknown) => void (failure = { error }));
  for (const [at, signal] of [
    [SHUTDOWN_TERM_AFTER_MS, 'SIGTERM'],
    [SHUTDOWN_KILL_AFTER_MS, 'SIGKILL'],
  ] as const) {
    // The timer keeps the process up meanwhile, as a shutdown must.
    const settled = (await settleWithin(closed, { ms: at - (Date.now() - started), ref: true })) === 'settled';
    const alive = groups.list().filter((group) => groupAlive(group.pgid));
    if (settled && alive.length === 0) break;
    if (settled) await pause(at - (Date.now() - started));
    for (const group of alive.filter((candidate) => groupAlive(candidate.pgid))) {
      Logger.of(log).warn(
        `${signal} to upstream "${group.name}" (process group ${group.pgid}), still running ${at / 1000} s into shutdown`,
      );
      signalGroup(group.pgid, signal);
    }
  }
  // Held until the close has settled: Node would otherwise end a process whose close waits on
  // unref'd timers alone, by itself, with code 0 (a command's exit code never set).
  const held = setInterval(() => {}, SHUTDOWN_KILL_AFTER_MS);
  try {
    await closed;
  } finally {
    clearInterval(held);
  }
  if (failure !== undefined) throw failure.error;
}
