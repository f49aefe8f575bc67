/**
 * Spawning a stdio upstream's process: the one place that does it, for its transport
 * (stdio-transport.ts) and for the early start over stdio (src/commands/serve-stdio/early-start.ts), which
 * spawns it before the SDK has loaded and hands it to the transport to adopt. Light on purpose:
 * Node's own modules and process-group.ts only.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { holdUnread } from '../../support/unread-output.js';
import { liveGroups, PROCESS_GROUPS, signalGroup } from '../../support/process-group.js';

export interface UpstreamCommand {
  readonly command: string;
  readonly args: readonly string[];
  /** The whole environment the upstream gets. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

export interface UpstreamProcess {
  readonly child: ChildProcessWithoutNullStreams;
  /** Resolves once the process runs; rejects with the spawn's error when it could not start (no pid). */
  readonly started: Promise<void>;
}

/** Spawns the upstream as the leader of a process group of its own, registered in liveGroups once it runs. */
export function spawnUpstreamProcess(name: string, { command, args, env, cwd }: UpstreamCommand): UpstreamProcess {
  const child = spawn(command, args, {
    env,
    ...(cwd !== undefined ? { cwd } : {}),
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: PROCESS_GROUPS,
    shell: false,
    windowsHide: true,
  });
  const started = new Promise<void>((resolve, reject) => {
    child.once('spawn', () => {
      if (PROCESS_GROUPS && child.pid !== undefined) liveGroups.add(child.pid, name);
      resolve();
    });
    child.once('error', (error) => {
      if (child.pid === undefined) reject(error);
    });
  });
  // Its caller reads the failure from `started` when it adopts the process, which may be later.
  started.catch(() => {});
  return { child, started };
}

/** The same command, argument for argument, environment and directory included: an early spawn may stand for it. */
export function sameCommand(a: UpstreamCommand, b: UpstreamCommand): boolean {
  return (
    a.command === b.command &&
    a.cwd === b.cwd &&
    a.args.length === b.args.length &&
    a.args.every((arg, index) => arg === b.args[index]) &&
    JSON.stringify(Object.entries(a.env).sort()) === JSON.stringify(Object.entries(b.env).sort())
  );
}

/** Upstreams spawned early (src/commands/serve-stdio/early-start.ts), by name, until their transports adopt them. */
const early = new Map<
  string,
  { readonly command: UpstreamCommand; readonly process: UpstreamProcess; readonly release: () => void }
>();

/** Holds an early-spawned upstream for the transport that will start `name` with the same command. */
export function offerEarlyUpstream(name: string, command: UpstreamCommand, process: UpstreamProcess): void {
  early.set(name, { command, process, release: holdUnread([process.child.stdout, process.child.stderr]) });
}

/** The process spawned early for this upstream and command, taken; none when there is none or the command differs. */
export function claimEarlyUpstream(name: string, command: UpstreamCommand): UpstreamProcess | undefined {
  const held = early.get(name);
  if (held === undefined) return undefined;
  early.delete(name);
  held.release();
  if (sameCommand(held.command, command)) return held.process;
  // Not what this transport would start: the early one and anything it started go.
  const { pid } = held.process.child;
  if (!(PROCESS_GROUPS && pid !== undefined && signalGroup(pid, 'SIGKILL'))) held.process.child.kill('SIGKILL');
  return undefined;
}

/**
 * Ends the early-spawned upstreams no transport adopted (the server is shutting down before it
 * started them). Each leads a process group of its own, which the shutdown's sweep of liveGroups
 * ends with it; this closes their stdin, which most servers take as the end.
 */
export function discardEarlyUpstreams(): void {
  for (const { process } of early.values()) process.child.stdin.end();
  early.clear();
}
