import { existsSync } from 'node:fs';
import { JSException, type JSValueHandle } from 'quickjs-wasi';
import {
  CALL_ARGS_MAX_BYTES,
  CALL_ARGS_MAX_VALUES,
  ERROR_MAX_CHARS,
  NOTIFY_SPACING_MS,
  STOP_CHECK_INTERVAL_MS,
  STOP_FILE_NAME,
  type ChildOptions,
  type EndMessage,
  type EndStatus,
} from '../protocol/contract.js';
import { countJsonValues } from '../protocol/frames.js';
import type { MessageSink } from './channel.js';
import { OutputBatcher } from './output-batcher.js';
import {
  restorePrelude,
  evaluatePrelude,
  type HostImpl,
  type PreludeSnapshot,
  type PreludeVm,
  type VmOptions,
} from './prelude-vm.js';
import { wrapScript, SCRIPT_FILE } from './script-source.js';

const STATUS_ENDED = 1;
const STATUS_STALLED = 2;
const MAX_TIMER_MS = 0x7fff_ffff;
/** 100 ms: the most a stopped script's prelude may take to count its unsent calls before it too is interrupted. */
const ENDING_COLLECT_MAX_MS = 100;

type EntryMethod = 'start' | 'deliver' | 'fire' | 'status' | 'unsent' | 'ending' | 'format';
type Ending = Omit<EndMessage, 't'>;

export interface ScriptRunHooks {
  readonly channel: MessageSink;
  readonly options: ChildOptions;
  /** The script has ended and said so, or the parent is gone: the child exits (a warm-up run just ends). */
  readonly exit: (reason: 'ended' | 'parent-gone') => void;
  readonly parentAlive: () => boolean;
}

/**
 * One script in this child: its VM (made before the script is known, so a pooled child is
 * ready at once), the host functions the prelude calls, host timers, and its ending.
 */
export class ScriptRun {
  private vm!: PreludeVm['vm'];
  private entry!: JSValueHandle;
  private readonly methods = new Map<EntryMethod, JSValueHandle>();
  private readonly output: OutputBatcher;
  private readonly timers = new Map<number, NodeJS.Timeout>();
  private readonly unhandled = new Map<number, JSValueHandle>();
  private started = false;
  /** While the prelude reports a stopped script's unsent calls, the stop must not interrupt it (for a while). */
  private collectingEndingSince: number | null = null;
  private ended = false;
  private stopRequested = false;
  private lastStopCheck = 0;
  private lastCallId = 0;
  /** Answers handed to the script, for its ending: the server names the ones it never read. */
  private answersRead = 0;
  private lastTimerId = 0;
  private notifies = 0;
  private lastNotifyAt = -Infinity;

  private constructor(private readonly hooks: ScriptRunHooks) {
    this.output = new OutputBatcher((text) => hooks.channel.send({ t: 'out', text }));
  }

  /** Restores the prelude snapshot (or, without one, evaluates the prelude) into the script's VM. */
  static async create(
    wasm: WebAssembly.Module,
    snapshot: PreludeSnapshot | null,
    hooks: ScriptRunHooks,
  ): Promise<ScriptRun> {
    const run = new ScriptRun(hooks);
    const options: VmOptions = {
      memoryLimit: hooks.options.memoryMaxBytes,
      interruptHandler: () => run.shouldInterrupt(),
      onUnhandledRejection: (promise, reason, isHandled) => run.trackRejection(promise, reason, isHandled),
    };
    const host = run.hostFunctions();
    const { vm, entry } = snapshot
      ? await restorePrelude(wasm, snapshot, options, host)
      : await evaluatePrelude(wasm, options, host);
    run.vm = vm;
    run.entry = entry;
    for (const name of ['start', 'deliver', 'fire', 'status', 'unsent', 'ending', 'format'] as const) {
      run.methods.set(name, entry.getProp(name));
    }
    return run;
  }

  start(code: string, toolsJson: string, unlisted: readonly string[]): void {
    if (this.started) return;
    this.started = true;
    let body: JSValueHandle;
    try {
      body = this.vm.evalCode(wrapScript(code), SCRIPT_FILE);
    } catch (error) {
      this.endWithException(error);
      return;
    }
    const seed = this.vm.hostToHandle([...crypto.getRandomValues(new Uint32Array(4))]);
    this.callEntry('start', body, this.vm.newString(toolsJson), seed, this.vm.hostToHandle([...unlisted]));
    body.dispose();
  }

  deliver(id: number, kind: string, payload: string): void {
    if (this.ended) return;
    if (kind !== 'timeout' && kind !== 'release') this.answersRead++;
    this.callEntry('deliver', this.vm.newNumber(id), this.vm.newString(kind), this.vm.newString(payload));
  }

  /** Frees the VM: for a warm-up run, whose child goes on to make the script's VM. */
  dispose(): void {
    this.vm.dispose();
  }

  stop(): void {
    this.stopRequested = true;
    if (!this.ended) this.finishStopped();
  }

  /** Stopped: no more of the script runs, but the prelude still counts the calls it never sent. */
  private finishStopped(): void {
    let unsent = '{}';
    this.collectingEndingSince = performance.now();
    try {
      if (this.started) unsent = this.vm.callFunction(this.methods.get('unsent')!, this.entry).consume((h) => h.toString());
    } catch {
      // Out of memory, broken, or past ENDING_COLLECT_MAX_MS: the calls never sent go uncounted.
    }
    this.collectingEndingSince = null;
    this.finish(unsent === '{}' ? { status: 'stopped' } : { status: 'stopped', unsent });
  }

  /** Calls into the prelude, then runs every job it queued and checks whether the script is over. */
  private callEntry(method: EntryMethod, ...args: JSValueHandle[]): void {
    if (this.ended) return;
    try {
      this.vm.callFunction(this.methods.get(method)!, this.entry, ...args).dispose();
      this.vm.executePendingJobs();
      const status = this.callNumber('status');
      if (status === STATUS_ENDED || status === STATUS_STALLED) {
        const ending = this.vm.callFunction(this.methods.get('ending')!, this.entry, status === STATUS_STALLED ? this.vm.true : this.vm.false);
        this.finish(JSON.parse(ending.consume((h) => h.toString())) as Ending);
        return;
      }
    } catch (error) {
      this.endWithException(error);
      return;
    } finally {
      for (const arg of args) if (!arg.disposed) arg.dispose();
    }
    this.output.flush();
  }

  private callNumber(method: EntryMethod): number {
    return this.vm.callFunction(this.methods.get(method)!, this.entry).consume((h) => h.toNumber());
  }

  private endWithException(error: unknown): void {
    if (this.stopRequested) {
      this.finishStopped();
      return;
    }
    if (error instanceof JSException) {
      const message =
        error.message === 'out of memory'
          ? `InternalError: out of memory: the script used all of its ${formatMiB(this.hooks.options.memoryMaxBytes)} ` +
            '(the server\'s memoryMaxBytes setting)'
          : this.formatException(error);
      this.finish({ status: 'failed', error: message });
      return;
    }
    process.stderr.write(`engine error: ${(error as Error)?.stack ?? String(error)}\n`);
    this.finish({ status: 'failed', error: `the engine failed: ${(error as Error)?.message ?? String(error)}` });
  }

  /** A syntax error reads like any other: its message and the script's own frames. */
  private formatException(error: JSException): string {
    const frames = (error.stack ?? '')
      .split('\n')
      .filter((line) => line.includes(`${SCRIPT_FILE}:`))
      .join('\n');
    return frames ? `${error.name}: ${error.message}\n${frames}` : `${error.name}: ${error.message}`;
  }

  private finish(ending: Ending): void {
    if (this.ended) return;
    this.ended = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    if (ending.status !== 'stopped') this.reportUnhandledRejections();
    this.output.flush();
    const error = ending.error;
    const cut = error !== undefined && error.length > ERROR_MAX_CHARS;
    this.hooks.channel.send({
      t: 'end',
      ...ending,
      read: this.answersRead,
      ...(cut ? { error: `${error.slice(0, ERROR_MAX_CHARS - 64)}… (cut: the error was ${error.length} characters)` } : {}),
    });
    this.hooks.channel.flush();
    this.hooks.exit('ended');
  }

  // ---- what the prelude calls ----

  private hostFunctions(): HostImpl {
    const vm = () => this.vm;
    return {
      send: (tool, argsJson) => {
        const json = argsJson.toString();
        const problem = checkArgs(json);
        return problem === '' ? vm().newNumber(this.send(tool.toString(), json)) : vm().newString(problem);
      },
      checkArgs: (argsJson) => vm().newString(checkArgs(argsJson.toString())),
      out: (text) => {
        if (!this.ended) this.output.write(text.toString());
        return vm().undefined;
      },
      notify: (payload) => vm().newString(this.notify(payload.toString())),
      setTimer: (ms) => vm().newNumber(this.setTimer(ms.toNumber())),
      clearTimer: (id) => {
        const timer = this.timers.get(id.toNumber());
        if (timer) clearTimeout(timer);
        this.timers.delete(id.toNumber());
        return vm().undefined;
      },
    };
  }

  private send(tool: string, argsJson: string): number {
    const id = ++this.lastCallId;
    if (this.ended) return id;
    this.output.flush();
    this.hooks.channel.send({ t: 'call', id, tool, args: argsJson });
    return id;
  }

  private notify(payloadJson: string): string {
    const { notifyMax } = this.hooks.options;
    if (notifyMax === 0) return 'notify is off on this server (its notifyMax setting is 0)';
    if (this.notifies >= notifyMax) return `notify: this script has used all ${notifyMax} of its notifies`;
    const now = performance.now();
    if (now - this.lastNotifyAt < NOTIFY_SPACING_MS) return 'skipped';
    this.notifies++;
    this.lastNotifyAt = now;
    this.output.flush();
    this.hooks.channel.send({ t: 'notify', payload: payloadJson });
    return '';
  }

  private setTimer(ms: number): number {
    const id = ++this.lastTimerId;
    const delay = Math.min(Math.max(0, ms), MAX_TIMER_MS);
    this.timers.set(
      id,
      setTimeout(() => {
        this.timers.delete(id);
        this.callEntry('fire', this.vm.newNumber(id));
      }, delay),
    );
    return id;
  }

  /** Called by QuickJS every few thousand instructions: the stop file, the parent, stale output. */
  private shouldInterrupt(): boolean {
    if (this.collectingEndingSince !== null) return performance.now() - this.collectingEndingSince > ENDING_COLLECT_MAX_MS;
    if (this.stopRequested) return true;
    if (!this.started) return false;
    const now = performance.now();
    if (now - this.lastStopCheck < STOP_CHECK_INTERVAL_MS) return false;
    this.lastStopCheck = now;
    if (!this.hooks.parentAlive()) this.hooks.exit('parent-gone');
    this.output.flushIfStale(now);
    // Calls and output sent before a loop that never yields go out here, not at the turn's end.
    this.hooks.channel.flush();
    if (existsSync(STOP_FILE_NAME)) this.stopRequested = true;
    return this.stopRequested;
  }

  private trackRejection(promise: JSValueHandle, reason: JSValueHandle, isHandled: boolean): void {
    const key = promise.identity;
    const known = this.unhandled.get(key);
    if (isHandled) {
      known?.dispose();
      this.unhandled.delete(key);
    } else if (!known) {
      this.unhandled.set(key, reason.dup());
    }
  }

  /** A rejection nothing ever handled is printed, as a browser console would. */
  private reportUnhandledRejections(): void {
    for (const reason of this.unhandled.values()) {
      try {
        const text = this.vm.callFunction(this.methods.get('format')!, this.entry, reason).consume((h) => h.toString());
        this.output.write(`Uncaught (in promise) ${text}\n`);
      } catch {
        this.output.write('Uncaught (in promise) (a rejection that could not be printed)\n');
      }
      reason.dispose();
    }
    this.unhandled.clear();
  }
}

/** '' when a call's arguments are within the caps, else what to tell the script. */
function checkArgs(argsJson: string): string {
  const bytes = Buffer.byteLength(argsJson, 'utf8');
  if (bytes > CALL_ARGS_MAX_BYTES) {
    return `args are ${bytes} bytes of JSON, past the cap of ${CALL_ARGS_MAX_BYTES}`;
  }
  if (countJsonValues(argsJson, CALL_ARGS_MAX_VALUES) > CALL_ARGS_MAX_VALUES) {
    return `args hold more than ${CALL_ARGS_MAX_VALUES} values, past the cap`;
  }
  return '';
}

function formatMiB(bytes: number): string {
  return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MiB`;
}

export type { EndStatus };
