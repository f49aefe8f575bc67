/**
 * The client side of a stdio upstream, on the SDK's `Transport` interface. Our own rather than the
 * SDK's StdioClientTransport, which signals only its direct child (a server behind `npx -y` outlived
 * it) and whose ReadBuffer ends the connection past 10 MiB. Here the upstream leads a process group
 * of its own and everything in the group ends with it; every line it sends is checked
 * (answer-check.ts) before the SDK sees it.
 */
import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { SdkError, SdkErrorCode, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import { BoundedLineReader } from '../../json-rpc/bounded-lines.js';
import { checkLine, checkOversize, type Checked } from './answer-check.js';
import { endGroup, GROUP_TERM_AFTER_MS, PROCESS_GROUPS, type LiveGroups } from '../../support/process-group.js';
import { claimEarlyUpstream, spawnUpstreamProcess } from './upstream-process.js';
import type { StderrLines } from '../../support/stderr-lines.js';
import { settleWithin } from '../../support/settle.js';
import { deferred } from '../../support/deferred.js';

export interface StdioTransportOptions {
  /** The upstream's name in the config, for the shutdown's log. */
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  /** The whole environment the upstream gets. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
  readonly stderr: StderrLines;
  /** The longest message read (read-limit.ts); a longer one is skipped, and a response among them fails its request. */
  readonly maxMessageBytes: number;
  /** On close, how long the group has to end by itself after its stdin closes, before SIGTERM. Default GROUP_TERM_AFTER_MS. */
  readonly closeGraceMs?: number;
  /** Where its process group is kept from spawn until it has ended: its hub's, which that hub's shutdown sweeps. */
  readonly processGroups: LiveGroups;
}

export class StdioUpstreamTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child: ChildProcess | undefined;
  private leaderExited = false;
  private stdoutClosed = false;
  private finished = false;
  private readonly finishing = deferred();
  private ending: Promise<void> | undefined;

  constructor(private readonly options: StdioTransportOptions) {}

  /** The upstream's process id (also its process group's id); undefined before start. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /**
   * The upstream's stderr (StderrLines reads it). With `pid`, what tells the SDK's version
   * negotiation that this is a stdio transport: a probe left unanswered then means a 2025 server
   * rather than an outage (revision.ts).
   */
  get stderr(): Readable | null {
    return this.child?.stderr ?? null;
  }

  start(): Promise<void> {
    if (this.child !== undefined) throw new Error('StdioUpstreamTransport already started');
    const { name, command, args, env, cwd, processGroups } = this.options;
    const upstream = { command, args, env, ...(cwd !== undefined ? { cwd } : {}) };
    // Spawned already when the server started over stdio (src/commands/serve-stdio/early-start.ts), or now.
    const { child, started } =
      claimEarlyUpstream(name, upstream, processGroups) ?? spawnUpstreamProcess(name, upstream, processGroups);
    this.child = child;
    this.options.stderr.attach(child.stderr);
    child.stdin.on('error', (error) => this.onerror?.(error));
    child.stdout.on('error', (error) => this.onerror?.(error));
    const { maxMessageBytes } = this.options;
    const reader = new BoundedLineReader(maxMessageBytes, {
      line: (text) => this.deliver(checkLine(text)),
      oversize: (line) => this.deliver(checkOversize(line, maxMessageBytes)),
    });
    child.stdout.on('data', (chunk: Buffer) => reader.push(chunk));
    const ended = (): void => {
      const cut = reader.end();
      if (cut > 0) this.onerror?.(new Error(`its stdout ended in the middle of a message (${cut} bytes without a newline)`));
    };
    const stdoutClosed = (): void => {
      this.stdoutClosed = true;
      // A server that closed its stdout can't answer any more, whether or not it runs on.
      if (!this.leaderExited) void this.end();
      this.finishIfDone();
    };
    const exited = (): void => {
      this.leaderExited = true;
      // The process we started is gone: whatever it left in its group goes too.
      void this.end(0);
      this.finishIfDone();
    };
    child.stdout.on('end', ended);
    child.stdout.on('close', stdoutClosed);
    child.on('exit', exited);
    // An early-spawned upstream may have ended before it was adopted, these events unheard.
    if (child.stdout.readableEnded) setImmediate(ended);
    if (child.stdout.closed) setImmediate(stdoutClosed);
    if (child.exitCode !== null || child.signalCode !== null) setImmediate(exited);
    return started.then(
      () => {
        child.on('error', (error) => this.onerror?.(error));
      },
      (error: unknown) => {
        this.finish();
        throw error;
      },
    );
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (stdin === undefined || stdin === null || !stdin.writable || this.ending !== undefined) {
      return Promise.reject(new SdkError(SdkErrorCode.NotConnected, 'Not connected'));
    }
    // The messages of one turn (the calls a script made in one go) leave in one write.
    if (stdin.writableCorked === 0) {
      stdin.cork();
      process.nextTick(() => stdin.uncork());
    }
    return new Promise((resolve, reject) => {
      if (stdin.write(`${JSON.stringify(message)}\n`)) return resolve();
      // A full pipe: sent once it drains, not at all if the pipe closes first.
      const drained = (): void => {
        stdin.off('close', closed);
        resolve();
      };
      const closed = (): void => {
        stdin.off('drain', drained);
        reject(new SdkError(SdkErrorCode.NotConnected, 'Not connected'));
      };
      stdin.once('drain', drained).once('close', closed);
    });
  }

  /** Closes the upstream's stdin and ends its process group: see process-group.ts for the escalation. */
  async close(): Promise<void> {
    if (this.child === undefined) return;
    await this.end(this.options.closeGraceMs);
  }

  /** Ends the upstream (once): stdin closed, then the group is given `graceMs` before SIGTERM and SIGKILL. */
  private end(graceMs: number = GROUP_TERM_AFTER_MS): Promise<void> {
    this.ending ??= (async () => {
      const child = this.child!;
      // It never ran (spawn failed): nothing to end.
      if (child.pid === undefined) return;
      child.stdin?.end();
      if (PROCESS_GROUPS && child.pid !== undefined) {
        await endGroup(child.pid, graceMs);
        this.options.processGroups.delete(child.pid);
      } else {
        await endChild(child, graceMs);
      }
      // Ended, but the pipe is held by a process outside the group (one that left it): stop reading.
      if (!this.stdoutClosed) child.stdout?.destroy();
      await this.finishing.promise;
    })();
    return this.ending;
  }

  private deliver(checked: Checked): void {
    if ('skipped' in checked) this.onerror?.(new Error(`skipped ${checked.skipped}`));
    else this.onmessage?.(checked.message);
  }

  private finishIfDone(): void {
    if (this.leaderExited && this.stdoutClosed) this.finish();
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.finishing.resolve();
    this.onclose?.();
  }
}

/** Without process groups (Windows): the direct child only, stdin closed, then a kill after the grace. */
async function endChild(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  if ((await settleWithin(exited, { ms: graceMs })) === 'timeout') child.kill();
  await exited;
}
