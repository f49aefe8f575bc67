/**
 * A server's last steps, whichever mode it serves in: one shutdown however many reasons come,
 * everything it started closed within the time a client gives it (process-tree.ts), a deadline
 * past which it exits anyway, and SIGINT, SIGTERM, SIGHUP or an internal error as reasons.
 */
import { closeLeavingNoProcess } from '../support/process-tree.js';
import { END_SIGNALS, listenForEndSignals, markClosing, signalExitCode, type EndSignal } from '../support/end-signals.js';
import { Logger, type Log } from '../support/log.js';
import type { UpstreamHub } from '../upstream/hub.js';
import type { LiveGroups } from '../support/process-group.js';

/**
 * 30 s: the longest a shutdown may take before the server exits anyway (code 1, saying so). A
 * last resort: the shutdown signals its whole process tree, with SIGKILL at 2.5 s.
 */
export const SHUTDOWN_DEADLINE_MS = 30_000;

/** Exit code when the upstreams can't be served as configured (a name collision), or shutdown failed. */
export const EXIT_FAILURE = 1;

/** Whose process a server runs in: bin/'s, where it is the server's own, or a test's, which serves in its own. */
export interface ServeProcess {
  /** The end, with its exit code: the process's exit, or a test's. */
  readonly exit: (code: number) => void;
  /**
   * The process is the server's own, not a test's: the end signals shut it down (shutDownOnSignals),
   * an uncaught error too, and it collects its garbage once idle after work (support/idle-collect.ts).
   */
  readonly ownsProcess: boolean;
}

/** bin/'s: the process's exit and signals. */
export const OWN_PROCESS: ServeProcess = { exit: (code) => process.exit(code), ownsProcess: true };

/** Shuts down once: logs why, runs `close` on the shutdown clock, exits with `code` (EXIT_FAILURE if `close` threw). */
export type ShutDown = (why: string, code?: number) => Promise<void>;

/** `processGroups`: the server's hub's, which the shutdown's clock sweeps. `exit`: the process's, unless a test serves in its own process. */
export function createShutdown(
  close: () => Promise<void>,
  processGroups: LiveGroups,
  log: Log,
  exit: (code: number) => void = (code) => process.exit(code),
): ShutDown {
  let shuttingDown: Promise<void> | undefined;
  return (why, code = 0) => {
    shuttingDown ??= (async () => {
      markClosing();
      const said = Logger.of(log);
      said.info(`shutting down (${why})`);
      // Held (not unref'd): it keeps the process up until `exit`, so a close still waiting on
      // unref'd timers alone is never cut short by Node's natural exit, with code 0.
      const deadline = setTimeout(() => {
        said.error(`shutdown took over ${SHUTDOWN_DEADLINE_MS / 1000} s; exiting anyway`);
        exit(EXIT_FAILURE);
      }, SHUTDOWN_DEADLINE_MS);
      try {
        await closeLeavingNoProcess(close, log, processGroups);
      } catch (error) {
        said.error(`error while shutting down: ${error instanceof Error ? error.stack : String(error)}`);
        code = EXIT_FAILURE;
      }
      clearTimeout(deadline);
      exit(code);
    })();
    return shuttingDown;
  };
}

/**
 * A server's close, in the order every mode follows: upstreams stop restarting at once (the
 * shutdown's own signals, process-tree.ts, may end one while the scripts stop, and a process
 * started then would only be killed), then `stopServing` (scripts first, so their calls are
 * cancelled upstream rather than lost), then the upstreams close.
 */
export async function closeInOrder(
  hub: Pick<UpstreamHub, 'stopRestarting' | 'close'>,
  stopServing: () => Promise<void>,
): Promise<void> {
  hub.stopRestarting();
  await stopServing();
  await hub.close();
}

/**
 * What a server does between the first signal and its shutdown (an HTTP server's drain on
 * SIGTERM, drain.ts); `hurry` aborts at a further signal, which ends it at once.
 */
export type BeforeShutdown = (signal: EndSignal, hurry: AbortSignal) => Promise<void>;

/**
 * SIGINT, SIGTERM and SIGHUP shut down, exiting 128 + the signal's number, and a second one
 * escalates (end-signals.ts), killing what is left of `processGroups` (the server's hub's); so
 * does an error nothing caught, after logging it. `signals` leaves one out for a server that gives
 * it another use (SIGHUP reloads an HTTP server's tokens file). `before` runs first, until done or
 * a second signal.
 */
export function shutDownOnSignals(
  shutDown: ShutDown,
  processGroups: LiveGroups,
  log: Log,
  signals: readonly EndSignal[] = END_SIGNALS,
  before?: BeforeShutdown,
): void {
  void listenForEndSignals(log, processGroups, signals).first.then(async (signal) => {
    if (before !== undefined) {
      const hurry = new AbortController();
      const again = () => hurry.abort();
      for (const each of signals) process.once(each, again);
      await before(signal, hurry.signal);
      for (const each of signals) process.off(each, again);
    }
    await shutDown(signal, signalExitCode(signal));
  });
  process.on('uncaughtException', (error) => {
    Logger.of(log).error(`internal error: ${error.stack ?? error.message}`);
    void shutDown('internal error', EXIT_FAILURE);
  });
}
