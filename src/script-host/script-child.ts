import type { ChildProcess } from 'node:child_process';
import { rm, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { STOP_FILE_NAME, type Breach, type ChildMessage, type ParentMessage } from '../../protocol/contract.js';
import { encodeFrame } from '../../protocol/frames.js';
import { StderrLines } from '../support/stderr-lines.js';
import { ChildNotReadyError, type ChannelEvents, type ScriptChannel } from './channel.js';
import { ChildFrameReader } from './child-frames.js';
import { ChildLease } from './child-lease.js';
import { spawnScriptProcess, type ScriptProcess, type SpawnChildOptions } from './script-process.js';
import { logFailure, processLog, type Log } from '../support/log.js';
import { deferred } from '../support/deferred.js';

/** 64 KiB: frames waiting for the child's stdin are joined into one write up to this size. */
const WRITE_JOIN_MAX_BYTES = 64 * 1024;

/** 64 KiB: of a child's stderr, what goes to the server's stderr; past it, lines are counted, not logged. */
export const CHILD_STDERR_LOGGED_MAX_CHARS = 64 * 1024;

/**
 * 2 s: a child let go after its script ended (ScriptChild.release) that has not exited by then is
 * killed.
 */
export const EXIT_GRACE_MS = 2_000;

export interface ScriptChildOptions extends SpawnChildOptions {
  /** Where the child's stderr lines go, prefixed; the server's stderr by default. */
  readonly log?: Log;
  /**
   * Called once the child has said how its script ended; the child exits when released
   * (ScriptChild.release). Without it, a child is released as soon as it says so.
   */
  readonly onEnding?: (child: ScriptChild) => void;
}

/**
 * A script's child process, seen from the server: spawned with an empty environment in a
 * private directory, ready before it is given a script, checked frame by frame (child-frames.ts).
 * Its scripts run one at a time: a child whose script ended with its engine intact may be reset
 * (reset()) and given the next, each through a lease (lease()) that ends with its script.
 */
export class ScriptChild implements ScriptChannel {
  readonly dir: string;
  /** Resolves when the process has exited and its directory is removed. */
  readonly gone: Promise<void>;
  /** The ready of the VM the next (or current) script runs in: the first, or the last reset's. */
  private currentReady!: Promise<void>;
  private settleReady: (error?: Error) => void = () => {};
  private readonly frames: ChildFrameReader;
  /** The lease of the script the child runs now, if it was given one through lease(). */
  private currentLease: ChildLease | undefined;
  /** The child's last `end` said its engine is intact (protocol/contract.ts, `reusable`). */
  private endedIntact = false;
  /** Killed by this server (a breach, a stop's grace, a crash): never reused. */
  private killed = false;
  /** Scripts it was given, resets included: the pool's retirement count. */
  private scriptsStarted = 0;
  private readonly process: ChildProcess;
  private readonly writes: Array<{ frame: Buffer; written: (() => void) | undefined }> = [];
  private writing = false;
  private writeQueued = false;
  private events: Partial<ChannelEvents> = {};
  private saidEnd = false;
  private released = false;
  private exitTimer: NodeJS.Timeout | undefined;
  private readonly onEnding: (child: ScriptChild) => void;
  private exitedWith: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  private readonly stderr: StderrLines;
  /** Why the process could not be started or signalled, from its 'error' event. */
  private failure: string | null = null;
  private brokenBy: Breach | null = null;
  /** The catalog sent ahead of the script (offerCatalog), as its JSON text. */
  private catalogSent: string | undefined;
  private started = false;

  constructor(options: ScriptChildOptions, spawned: ScriptProcess = spawnScriptProcess(options)) {
    this.dir = spawned.dir;
    this.process = spawned.process;
    this.onEnding = options.onEnding ?? ((child) => child.release());
    this.awaitReady();
    const settleReady = (error?: Error): void => this.settleReady(error);
    const removed = deferred();
    this.gone = removed.promise;

    const log = options.log ?? processLog;
    this.stderr = new StderrLines(`[script child ${this.process.pid}] `, log, CHILD_STDERR_LOGGED_MAX_CHARS);
    this.stderr.attach(this.process.stderr!);
    const frames = new ChildFrameReader({
      ready: () => settleReady(),
      message: (message) => this.onMessage(message),
      breach: (reason) => this.breach(reason, settleReady),
    });
    this.frames = frames;
    (this.process.stdio[3] as Readable).on('data', (chunk: Buffer) => frames.push(chunk));
    // A child gone before a write (killed, crashed) is reported by its exit; the write's EPIPE is only logged.
    (this.process.stdin as Writable).on('error', logFailure(`a write to script child ${this.process.pid}`, log));
    const gone = (code: number | null, signal: NodeJS.Signals | null): void => {
      if (this.exitedWith !== null) return;
      this.exitedWith = { code, signal };
      clearTimeout(this.exitTimer);
      settleReady(new ChildNotReadyError(`the script's process exited before it was ready${this.describeExit()}`));
      this.events.exit?.();
      // Off the event loop, which a synchronous removal held a millisecond or more; gone once removed.
      rm(this.dir, { recursive: true, force: true }, (error) => {
        if (error) log(`codemode-mcp: could not remove a script's directory ${this.dir}: ${error.message}`, 'warn');
        removed.resolve();
      });
    };
    const failed = (error: Error): void => {
      this.failure = error.message;
      settleReady(error);
      // A spawn that failed (no pid) has no process to wait for; it never emits 'exit'.
      if (this.process.pid === undefined) gone(null, null);
    };
    this.process.on('error', failed);
    // An early-spawned child (src/commands/serve-stdio/early-start.ts) may have failed to start before it was adopted.
    const early = spawned.failure();
    if (early !== undefined) setImmediate(() => failed(early));
    // 'close', not 'exit': it comes after the last of fd 3 is read, so an ending is never taken
    // for an exit before it.
    this.process.on('close', gone);
    // An early-spawned child may have exited, its pipes closed, before it was adopted: its 'close' unheard.
    const { exitCode, signalCode, stdio } = this.process;
    const pipesClosed = [stdio[2], stdio[3]].every((pipe) => (pipe as Readable | null)?.closed !== false);
    if ((exitCode !== null || signalCode !== null) && pipesClosed) setImmediate(() => gone(exitCode, signalCode));
  }

  get pid(): number | undefined {
    return this.process.pid;
  }

  /** Resolves when the child said it is ready for a script; rejects when it exits or breaks the protocol first. */
  get ready(): Promise<void> {
    return this.currentReady;
  }

  /**
   * Its script has ended with the engine intact and it was neither killed nor let go: reset() may
   * give it another script.
   */
  get reusable(): boolean {
    return this.saidEnd && this.endedIntact && !this.killed && !this.released && !this.exited && this.brokenBy === null;
  }

  /** Scripts it has been given. */
  get scripts(): number {
    return this.scriptsStarted;
  }

  /** The channel for one script: it ends when the child says how that script ended (ChildLease). */
  lease(): ScriptChannel {
    this.currentLease = new ChildLease(this);
    return this.currentLease;
  }

  /**
   * Makes a reusable child (see reusable) ready for another script: it drops everything of the last
   * one and makes a fresh VM (protocol/contract.ts, `reset`); `ready` is then the new VM's.
   */
  reset(): void {
    if (!this.reusable) throw new Error('only a child whose script ended with its engine intact is reset');
    // Written after this turn's other writes. The reset is asked for as the script's ending is read;
    // the answer that ending makes (to the client, a few promises on) then goes first, neither
    // behind this write nor beside the reset it starts in the child, which made a paced one-call
    // run measurably faster (bench/ANALYSIS.md, "Figures from the code's comments").
    this.enqueue(encodeFrame({ t: 'reset' }), undefined, setImmediate);
    this.frames.expectReady();
    this.awaitReady();
    this.saidEnd = false;
    this.endedIntact = false;
    this.started = false;
    this.currentLease = undefined;
  }

  get exited(): boolean {
    return this.exitedWith !== null;
  }

  /** The child said how its script ended: it is exiting (and is killed if it doesn't, see Script). */
  get ending(): boolean {
    return this.saidEnd || this.exited;
  }

  /** The exit code or signal and the end of stderr, to explain an exit. */
  describeExit(): string {
    if (this.failure !== null) return ` (${this.failure})`;
    const how = this.exitedWith
      ? this.exitedWith.signal
        ? ` (killed by ${this.exitedWith.signal})`
        : ` (exit code ${this.exitedWith.code})`
      : '';
    return this.stderr.tail.length > 0 ? `${how}: ${this.stderr.tail.join(' | ')}` : how;
  }

  /** Takes over the child's events once it is given a script. */
  listen(events: Partial<ChannelEvents>): void {
    this.events = events;
    if (this.brokenBy) events.breach?.(this.brokenBy);
    if (this.exitedWith) events.exit?.();
  }

  /**
   * Frames sent in one turn (the results of the calls one upstream read answered) go in one write
   * at its end; later ones each after the previous write has drained into the child's stdin.
   */
  send(message: ParentMessage, payload?: Uint8Array | string, written?: () => void): void {
    this.enqueue(encodeFrame(message, payload), written, (flush) => process.nextTick(flush));
  }

  /** Queues a frame, and the writes' next flush at the end of this turn by `flushAt` unless one is due. */
  private enqueue(frame: Buffer, written: (() => void) | undefined, flushAt: (flush: () => void) => void): void {
    if (this.exited || this.released) return;
    this.writes.push({ frame, written });
    if (this.writing || this.writeQueued) return;
    this.writeQueued = true;
    flushAt(() => {
      this.writeQueued = false;
      this.writeNext();
    });
  }

  /**
   * Sends a child waiting for its script the catalog, which it makes ready meanwhile (protocol/contract.ts,
   * `catalog`): a start then costs the child nothing that grows with the catalog. Sent again only when it changed.
   */
  offerCatalog(toolsJson: string): void {
    if (this.started || toolsJson === this.catalogSent) return;
    this.catalogSent = toolsJson;
    this.send({ t: 'catalog', tools: toolsJson });
  }

  /**
   * Gives the child its script; the catalog travels with it unless the child was sent that one
   * ahead. Either way the child keeps it as its catalog, made ready again after a reset.
   */
  start(code: string, toolsJson: string, unlisted: readonly string[]): void {
    this.started = true;
    this.scriptsStarted++;
    const sent = toolsJson === this.catalogSent;
    this.catalogSent = toolsJson;
    this.send({ t: 'start', code, ...(sent ? {} : { tools: toolsJson }), unlisted });
  }

  /** The stop file, seen by a computing child at its next interrupt check. */
  createStopFile(): void {
    if (this.exited) return;
    try {
      writeFileSync(join(this.dir, STOP_FILE_NAME), '');
    } catch {
      // The child is exiting and its directory is gone: nothing is left to stop.
    }
  }

  kill(): void {
    this.killed = true;
    if (!this.exited) this.process.kill('SIGKILL');
  }

  /**
   * Lets a child whose script has ended exit: the `exit` it waits for after its ending
   * (protocol/contract.ts). One still there EXIT_GRACE_MS later is killed.
   */
  release(): void {
    if (this.released || this.exited) return;
    this.send({ t: 'exit' });
    this.released = true;
    this.exitTimer = setTimeout(() => this.kill(), EXIT_GRACE_MS);
  }

  /** Writes the frames waiting, several small ones in one write, and the next ones when it has drained. */
  private writeNext(): void {
    if (this.writing || this.exited || this.writes.length === 0) return;
    let bytes = 0;
    let count = 0;
    while (count < this.writes.length && (count === 0 || bytes + this.writes[count]!.frame.length <= WRITE_JOIN_MAX_BYTES)) {
      bytes += this.writes[count]!.frame.length;
      count++;
    }
    const batch = this.writes.splice(0, count);
    const data =
      count === 1
        ? batch[0]!.frame
        : Buffer.concat(
            batch.map((write) => write.frame),
            bytes,
          );
    this.writing = true;
    this.process.stdin!.write(data, (error) => {
      this.writing = false;
      if (!error) for (const write of batch) write.written?.();
      this.writeNext();
    });
  }

  private onMessage(message: ChildMessage): void {
    const ending = message.t === 'end' && !this.saidEnd;
    if (message.t === 'end') {
      this.saidEnd = true;
      this.endedIntact = message.reusable === true;
    }
    this.events.message?.(message);
    if (!ending) return;
    this.currentLease?.end();
    this.onEnding(this);
  }

  /** A new `ready` to wait for: the first VM's, or a reset's. */
  private awaitReady(): void {
    this.currentReady = new Promise<void>((resolve, reject) => {
      this.settleReady = (error) => (error ? reject(error) : resolve());
    });
    // Not dropped: the script waiting on `ready` reads its failure (script.ts); this only keeps an
    // unawaited rejection from ending the process.
    this.currentReady.catch(() => {});
  }

  private breach(reason: Breach, settleReady: (error?: Error) => void): void {
    this.brokenBy = reason;
    this.kill();
    settleReady(new ChildNotReadyError(`the script's process broke the protocol before it was ready: ${reason}`));
    this.events.breach?.(reason);
  }
}
