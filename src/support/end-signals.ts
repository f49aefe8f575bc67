/**
 * The signals that end codemode-mcp, whatever it is doing (serving, `run`, `tools`, `login`), and
 * what a second one does. Without a listener, Node dies by the signal at once and leaves every
 * upstream process group it started running, in a group of its own that the terminal's signal
 * never reached. So a listener is in place while anything runs: the first signal starts an orderly
 * close, and each later one escalates it, never abandoning a process.
 */
import { constants } from 'node:os';
import { LiveGroups, signalGroup } from './process-group.js';
import { Logger, type Log } from './log.js';
import { deferred } from './deferred.js';

/** Ctrl-C, kill's default, and the terminal closing. */
export const END_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

export type EndSignal = (typeof END_SIGNALS)[number];

/** The status a shell gives a process ended by `signal` (128 + its number): what we exit with after closing. */
export function signalExitCode(signal: EndSignal): number {
  return 128 + constants.signals[signal];
}

let closing = false;

/**
 * The process has begun to close for a reason of its own (its client went away): a signal from
 * now on is a hurry, as a second one is. The SDK's stdio client sends SIGTERM 2 s after closing
 * our stdin and SIGKILL 2 s later; a SIGKILL to us would leave the upstreams behind.
 */
export function markClosing(): void {
  closing = true;
}

export interface EndSignals {
  /** The first signal that came, if any. */
  readonly received: EndSignal | undefined;
  /** Resolves with the first signal. */
  readonly first: Promise<EndSignal>;
  /** The process groups a later signal kills: a hub started under these signals keeps its upstreams' here. */
  readonly processGroups: LiveGroups;
  /** Stops listening: from then on a signal ends the process by default. */
  dispose(): void;
}

/**
 * Listens for END_SIGNALS from now on. The first settles `first` (whoever waits on it begins the
 * close); each later one, and any after markClosing, sends SIGKILL at once to every process group
 * of `processGroups` still alive (a server's hub's; absent, new ones for the hub a command starts),
 * what the close's own clock (process-tree.ts) would send later, and the close goes on to its end.
 */
export function listenForEndSignals(
  log: Log,
  processGroups: LiveGroups = new LiveGroups(),
  signals: readonly EndSignal[] = END_SIGNALS,
): EndSignals {
  let received: EndSignal | undefined;
  const first = deferred<EndSignal>();
  const handlers = signals.map((signal) => {
    const handler = (): void => {
      const hurry = received !== undefined || closing;
      if (received === undefined) {
        received = signal;
        first.resolve(signal);
      }
      if (!hurry) return;
      for (const group of processGroups.list()) {
        if (signalGroup(group.pgid, 'SIGKILL')) {
          Logger.of(log).warn(
            `SIGKILL to upstream "${group.name}" (process group ${group.pgid}), on a signal (${signal}) during the close`,
          );
        }
      }
    };
    process.on(signal, handler);
    return [signal, handler] as const;
  });
  return {
    get received() {
      return received;
    },
    first: first.promise,
    processGroups,
    dispose: () => {
      for (const [signal, handler] of handlers) process.off(signal, handler);
    },
  };
}
