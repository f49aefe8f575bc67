/**
 * Spawning a stdio upstream's process: the one place that does it, for its transport
 * (stdio-transport.ts) and for the early start over stdio (src/commands/serve-stdio/early-start.ts), which
 * spawns it before the SDK has loaded and hands it to the transport to adopt. Light on purpose:
 * Node's own modules and process-group.ts only.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { holdUnread } from '../../support/unread-output.js';
import { PROCESS_GROUPS, signalGroup, type LiveGroups } from '../../support/process-group.js';

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

/**
 * Spawns the upstream as the leader of a process group of its own, kept in `groups` (its hub's, or
 * the early start's) for the shutdown's sweep.
 */
export function spawnUpstreamProcess(
  name: string,
  { command, args, env, cwd }: UpstreamCommand,
  groups: LiveGroups,
): UpstreamProcess {
  const child = spawn(command, args, {
    env,
    ...(cwd !== undefined ? { cwd } : {}),
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: PROCESS_GROUPS,
    shell: false,
    windowsHide: true,
  });
  keepGroup(groups, name, child);
  const started = new Promise<void>((resolve, reject) => {
    child.once('spawn', () => resolve());
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

/**
 * The process spawned early for this upstream and command, taken and kept in `groups` (the claiming
 * hub's); none when there is none or the command differs.
 */
export function claimEarlyUpstream(name: string, command: UpstreamCommand, groups: LiveGroups): UpstreamProcess | undefined {
  const held = early.get(name);
  if (held === undefined) return undefined;
  early.delete(name);
  held.release();
  if (sameCommand(held.command, command)) {
    keepGroup(groups, name, held.process.child);
    return held.process;
  }
  // Not what this transport would start: the early one and anything it started go.
  const { pid } = held.process.child;
  if (!(PROCESS_GROUPS && pid !== undefined && signalGroup(pid, 'SIGKILL'))) held.process.child.kill('SIGKILL');
  return undefined;
}

/**
 * Ends the early-spawned upstreams no transport adopted (the server is shutting down before it
 * started them). Each leads a process group of its own, kept in the early start's groups, which
 * the hub keeps its own in too (serve-stdio.ts): the shutdown's sweep ends what is left of them;
 * this closes their stdin, which most servers take as the end.
 */
export function discardEarlyUpstreams(): void {
  for (const { process } of early.values()) process.child.stdin.end();
  early.clear();
}

/** Keeps the child's process group in `groups` if it runs (it has a pid); its transport deletes it once it has ended it. */
function keepGroup(groups: LiveGroups, name: string, child: ChildProcessWithoutNullStreams): void {
  if (PROCESS_GROUPS && child.pid !== undefined) groups.add(child.pid, name);
}
