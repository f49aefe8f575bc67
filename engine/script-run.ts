import { randomFillSync } from 'node:crypto';
import { existsSync } from 'node:fs';
import { JSException, type JSValueHandle } from 'quickjs-wasi';
import { closestHint } from '../common/closest-names.js';
import { formatBytes } from '../common/format-numbers.js';
import { SCRIPT_FILE, endedEarly, lineCount } from '../common/script-position.js';
import { ENTRY_METHODS, HOST_REFUSED, NOTIFY_SKIPPED, type EntryMethod } from '../common/seam.js';
import { searchQueryProblem, searchTools, type SearchableTool } from '../common/search-tools.js';
import {
  CALL_ARGS_MAX_BYTES,
  CALL_ARGS_MAX_VALUES,
  RESOURCE_CALLS,
  ERROR_MAX_CHARS,
  NOTIFY_SPACING_MS,
  STOP_CHECK_INTERVAL_MS,
  STOP_FILE_NAME,
  VALUE_MAX_CHARS,
  type ChildOptions,
  type EndMessage,
  type ToolEntry,
} from '../protocol/contract.js';
import { countJsonValues } from '../protocol/frames.js';
import type { MessageSink } from './channel.js';
import { newGuestStringFromUtf8, readGuestString } from './guest-string.js';
import { OutputBatcher } from './output-batcher.js';
import {
  evaluatePrelude,
  restorePrelude,
  type HostImpl,
  type PreludeSnapshot,
  type PreludeVm,
  type VmOptions,
} from './prelude-vm.js';
import { mayMeanOtherInTypeScript, wrapScript } from './script-source.js';
import { loadTypeStripper, stripTypes } from './strip-types.js';

const MAX_TIMER_MS = 0x7fff_ffff;
/** 100 ms: the most a stopped script's prelude may take to count its unsent calls before it too is interrupted. */
const ENDING_COLLECT_MAX_MS = 100;
const PROMISE_FULFILLED = 1;
const PROMISE_REJECTED = 2;

const STALLED = 'Stalled: the script awaits a promise that nothing can settle (no tool call, timer or job is left).';
const NOT_A_BODY =
  'SyntaxError: the script closed the function it runs in (a stray "})"?); write it as the body of an async function';
const TOO_DEEP =
  'RangeError: the script went deeper than the engine can follow (Maximum call stack size exceeded outside its own limit); ' +
  'it could not go on';

/** A syntax error as the prelude prints it, with the line it names. */
const SYNTAX_ERROR_AT = new RegExp(`^SyntaxError: [^\\n]*\\n {4}at ${SCRIPT_FILE}:(\\d+):\\d+$`);

type Ending = Omit<EndMessage, 't' | 'read'>;

export interface ScriptRunHooks {
  readonly channel: MessageSink;
  readonly options: ChildOptions;
  /**
   * The script has ended and said so (the child then waits for the parent to let it exit), or the
   * parent is gone (the child exits); a warm-up run just ends.
   */
  readonly exit: (reason: 'ended' | 'parent-gone') => void;
  readonly parentAlive: () => boolean;
}

/** The catalog as the engine searches it for the script: the tools it may list. */
interface Catalog {
  readonly tools: readonly SearchableTool[];
  readonly names: readonly string[];
}

/**
 * One script in this child: its VM (made before the script is known, so a pooled child is
 * ready at once), the host functions the prelude calls, host timers, and its ending. The body's
 * promise is watched here, by the engine's own promise state, so no script code decides when
 * the script is over.
 */
export class ScriptRun {
  private vm!: PreludeVm['vm'];
  private entry!: JSValueHandle;
  private readonly methods = new Map<EntryMethod, JSValueHandle>();
  private readonly output: OutputBatcher;
  private readonly timers = new Map<number, NodeJS.Timeout>();
  private readonly unhandled = new Map<number, JSValueHandle>();
  private catalog: Catalog = { tools: [], names: [] };
  /** Why the last catalog given could not be made ready in the VM (out of memory, say): the script's start fails with it. */
  private catalogFailure: { readonly error: unknown } | undefined;
  /** The script's body's promise, once it runs. */
  private body: JSValueHandle | null = null;
  private started = false;
  /** The body has settled and its ending is being read: no more calls into the prelude. */
  private settling = false;
  /** While the prelude reports a stopped script's unsent calls, the stop must not interrupt it (for a while). */
  private collectingEndingSince: number | null = null;
  private ended = false;
  /** V8's stack ran out inside the engine: the VM was unwound mid-call and must not be entered again. */
  private broken = false;
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
  static async create(wasm: WebAssembly.Module, snapshot: PreludeSnapshot | null, hooks: ScriptRunHooks): Promise<ScriptRun> {
    const run = new ScriptRun(hooks);
    const options: VmOptions = {
      memoryLimit: hooks.options.memoryMaxBytes,
      maxStackSize: hooks.options.quickjsStackBytes,
      interruptHandler: () => run.shouldInterrupt(),
      onUnhandledRejection: (promise, reason, isHandled) => run.trackRejection(promise, reason, isHandled),
    };
    const host = run.hostFunctions();
    const { vm, entry } = snapshot
      ? await restorePrelude(wasm, snapshot, options, host)
      : await evaluatePrelude(wasm, options, host);
    run.vm = vm;
    run.entry = entry;
    for (const name of ENTRY_METHODS) {
      run.methods.set(name, entry.getProp(name));
    }
    return run;
  }

  /**
   * Makes a catalog ready for the script (protocol/contract.ts, `catalog`): in a pooled child while
   * it waits, so the start costs nothing that grows with the catalog. A later one replaces it; once
   * the script has started, none does.
   */
  prepareCatalog(toolsJson: string): void {
    if (this.started || this.ended) return;
    this.catalog = catalogOf(toolsJson);
    this.catalogFailure = undefined;
    try {
      const json = this.vm.newString(toolsJson);
      try {
        this.vm.callFunction(this.methods.get('catalog')!, this.entry, json).dispose();
      } finally {
        json.dispose();
      }
    } catch (error) {
      this.catalogFailure = { error };
    }
  }

  /**
   * Installs the script's catalog (`toolsJson`, or the one prepared before), then compiles its body
   * and calls it. The catalog goes in first, so that code which closes the wrapper early
   * (`}); ...`) runs, like the body, in a world already set up, and gains nothing by it.
   */
  start(code: string, toolsJson: string | undefined, unlisted: readonly string[]): void {
    if (this.started) return;
    if (toolsJson !== undefined) this.prepareCatalog(toolsJson);
    this.started = true;
    if (this.catalogFailure !== undefined) return this.endWithException(this.catalogFailure.error);
    // node:crypto, not the global `crypto`: Web Crypto's modules load at its first use, 0.9 ms of a cold child's run.
    const [a, b, c, d] = randomFillSync(new Uint32Array(4));
    const vm = this.vm;
    const installed = this.callEntry(
      'start',
      vm.newString(JSON.stringify(unlisted)),
      vm.newNumber(a!),
      vm.newNumber(b!),
      vm.newNumber(c!),
      vm.newNumber(d!),
    );
    if (!installed) return;
    // JavaScript as written needs no stripper; TypeScript (whose compile as JavaScript fails at its
    // first type) or a generic call that JavaScript would read otherwise loads it, here, on this
    // script's time.
    if (mayMeanOtherInTypeScript(code)) return this.startTypeScript(code);
    const compiled = this.compile(code, true);
    if (compiled === 'typescript') this.startTypeScript(code);
    else if (compiled !== null) this.run(compiled);
  }

  /** Strips the script's types, loading the stripper first if this child hasn't, then runs it. */
  private startTypeScript(code: string): void {
    void loadTypeStripper().then(
      () => {
        if (this.ended) return;
        const stripped = stripTypes(code);
        if ('error' in stripped) return this.finish({ status: 'failed', error: stripped.error });
        const compiled = this.compile(stripped.code, false);
        if (compiled !== null && compiled !== 'typescript') this.run(compiled);
      },
      (error: Error) =>
        this.finish({ status: 'failed', error: `InternalError: the TypeScript stripper could not be loaded: ${error.message}` }),
    );
  }

  /**
   * The script's body as a function, or null once it has ended (its syntax error); 'typescript'
   * when `asJavaScript` and it is not JavaScript, so its types may be what failed.
   */
  private compile(code: string, asJavaScript: boolean): JSValueHandle | 'typescript' | null {
    const vm = this.vm;
    try {
      const fn = vm.evalCode(wrapScript(code), SCRIPT_FILE);
      try {
        if (!fn.isFunction) {
          this.finish({ status: 'failed', error: NOT_A_BODY });
          return null;
        }
        return vm.callFunction(fn, vm.undefined);
      } finally {
        fn.dispose();
      }
    } catch (error) {
      if (asJavaScript && error instanceof JSException && error.name === 'SyntaxError') {
        error.dispose();
        return 'typescript';
      }
      this.endWithException(error, code);
      return null;
    }
  }

  /** Watches the body's promise. */
  private run(promise: JSValueHandle): void {
    if (!promise.isPromise) {
      promise.dispose();
      return this.finish({ status: 'failed', error: NOT_A_BODY });
    }
    this.vm.markPromiseHandled(promise);
    this.body = promise;
    this.settle();
  }

  /** A call's outcome: for a result, its JSON's UTF-8 bytes as the frame brought them; else the message. */
  deliver(id: number, kind: string, payload: string | Uint8Array): void {
    if (this.ended || this.settling) return;
    if (kind !== 'timeout' && kind !== 'release') this.answersRead++;
    const vm = this.vm;
    const text = typeof payload === 'string' ? vm.newString(payload) : newGuestStringFromUtf8(vm, payload);
    this.callEntry('deliver', vm.newNumber(id), vm.newString(kind), text);
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
    if (this.started && !this.broken) {
      this.collectingEndingSince = performance.now();
      try {
        unsent = this.callString('unsent');
      } catch {
        // Out of memory, broken, or past ENDING_COLLECT_MAX_MS: the calls never sent go uncounted.
      }
      this.collectingEndingSince = null;
    }
    this.finish(unsent === '{}' ? { status: 'stopped' } : { status: 'stopped', unsent });
  }

  /** Calls into the prelude, then runs the jobs it queued and sees whether the script is over. False once it is. */
  private callEntry(method: EntryMethod, ...args: JSValueHandle[]): boolean {
    if (this.ended || this.settling) {
      for (const arg of args) arg.dispose();
      return false;
    }
    try {
      this.vm.callFunction(this.methods.get(method)!, this.entry, ...args).dispose();
    } catch (error) {
      this.endWithException(error);
      return false;
    } finally {
      for (const arg of args) if (!arg.disposed) arg.dispose();
    }
    return this.settle();
  }

  /** Runs every pending job, then ends the script if its body has settled and nothing it waits on remains. */
  private settle(): boolean {
    try {
      this.vm.executePendingJobs();
      if (this.body === null) return true;
      const state = this.body.promiseState;
      if (state !== PROMISE_REJECTED && this.callNumber('busy') !== 0) {
        this.output.flush();
        return true;
      }
      if (state === PROMISE_REJECTED || state === PROMISE_FULFILLED) {
        this.settling = true;
        void this.endWithBody();
        return false;
      }
      this.finish({ status: 'failed', error: STALLED, ...this.unsentField() });
      return false;
    } catch (error) {
      this.endWithException(error);
      return false;
    }
  }

  /** The body settled: its value as JSON, or its error as the script would print it. */
  private async endWithBody(): Promise<void> {
    const settled = await this.vm.resolvePromise(this.body!);
    try {
      if ('error' in settled) {
        this.finish({ status: 'failed', error: this.callString('format', settled.error), ...this.unsentField() });
      } else {
        const value = this.valueJson(settled.value);
        this.finish({ status: 'finished', ...(value === '' ? {} : { value }), ...this.unsentField() });
      }
    } catch (error) {
      this.endWithException(error);
    }
  }

  /**
   * The value as JSON ('' for none). A string, the common large value (a tool's text passed on), is
   * quoted here by V8: QuickJS's JSON.stringify takes 13 ms on 1 MB of text, V8's about 1 ms, and
   * a string primitive's JSON is its quoting whatever the script did (no toJSON is consulted). One
   * past the cap, and every other value, goes to the prelude, whose message says what to do.
   */
  private valueJson(value: JSValueHandle): string {
    if (value.isString) {
      const json = JSON.stringify(readGuestString(value));
      if (json.length <= VALUE_MAX_CHARS) {
        value.dispose();
        return json;
      }
    }
    return this.callString('valueJson', value);
  }

  private unsentField(): { unsent?: string } {
    const unsent = this.callString('unsent');
    return unsent === '{}' ? {} : { unsent };
  }

  private callNumber(method: EntryMethod): number {
    return this.vm.callFunction(this.methods.get(method)!, this.entry).consume((h) => {
      if (!h.isNumber) throw new Error(`the prelude's ${method}() gave something other than a number`);
      return h.toNumber();
    });
  }

  /** An entry method's string; the arguments are disposed. */
  private callString(method: EntryMethod, ...args: JSValueHandle[]): string {
    try {
      return this.vm.callFunction(this.methods.get(method)!, this.entry, ...args).consume((h) => {
        if (!h.isString) throw new Error(`the prelude's ${method}() gave something other than a string`);
        return readGuestString(h);
      });
    } finally {
      for (const arg of args) if (!arg.disposed) arg.dispose();
    }
  }

  /** `code`, when the exception came from compiling the script: a syntax error at the wrapper's last line is the script ending early. */
  private endWithException(error: unknown, code?: string): void {
    if (this.stopRequested) {
      this.finishStopped();
      return;
    }
    if (error instanceof JSException) {
      const described = this.describeException(error);
      const wrapperLine = code === undefined ? undefined : lineCount(code) + 1;
      const at = SYNTAX_ERROR_AT.exec(described);
      this.finish({ status: 'failed', error: at !== null && Number(at[1]) === wrapperLine ? endedEarly(code!) : described });
      return;
    }
    if (error instanceof RangeError && /call stack/i.test(error.message)) {
      // V8's own stack, not QuickJS's: the VM was unwound mid-call. Say so, and touch it no more.
      this.broken = true;
      this.finish({ status: 'failed', error: TOO_DEEP });
      return;
    }
    process.stderr.write(`engine error: ${(error as Error)?.stack ?? String(error)}\n`);
    this.finish({ status: 'failed', error: "InternalError: the engine failed (the server's log has the details)" });
  }

  /** A script's exception as the script would print it; the engine's own words for out of memory. */
  private describeException(error: JSException): string {
    if (error.message === 'out of memory') {
      return (
        `InternalError: out of memory: the script used all of its ${formatBytes(this.hooks.options.memoryMaxBytes)} ` +
        "(the server's memoryMaxBytes setting)"
      );
    }
    try {
      return this.callString('format', error.handle.dup());
    } catch {
      return `${error.name}: ${error.message}`;
    }
  }

  private finish(ending: Ending): void {
    if (this.ended) return;
    this.ended = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    if (ending.status !== 'stopped' && !this.broken) this.reportUnhandledRejections();
    this.output.flush();
    const { value, ...rest } = ending;
    const error = rest.error;
    const cut = error !== undefined && error.length > ERROR_MAX_CHARS;
    this.hooks.channel.send(
      {
        t: 'end',
        ...rest,
        read: this.answersRead,
        ...(cut ? { error: `${error.slice(0, ERROR_MAX_CHARS - 64)}… (cut: the error was ${error.length} characters)` } : {}),
      },
      value,
    );
    this.hooks.channel.flush();
    this.hooks.exit('ended');
  }

  // ---- what the prelude calls: primitives in, primitives out (common/seam.ts) ----

  private hostFunctions(): HostImpl {
    const refuse = (): JSValueHandle => this.vm.newString(HOST_REFUSED);
    const guarded =
      (name: string, fn: (...args: JSValueHandle[]) => JSValueHandle) =>
      (...args: JSValueHandle[]): JSValueHandle => {
        try {
          return fn(...args);
        } catch (error) {
          // A string, not an Error: quickjs-wasi copies an Error's host stack into the script.
          process.stderr.write(`engine error in codemode.${name}: ${(error as Error)?.stack ?? String(error)}\n`);
          // eslint-disable-next-line @typescript-eslint/only-throw-error -- see above: a string, on purpose
          throw `codemode: the engine failed in ${name} (the server's log has the details)`;
        }
      };
    return {
      send: guarded('send', (tool, argsJson) => {
        const name = textOf(tool);
        const json = textOf(argsJson);
        if (name === undefined || json === undefined) return refuse();
        const problem = checkArgs(json);
        return problem === '' ? this.vm.newNumber(this.send(name, json)) : this.vm.newString(problem);
      }),
      sendResource: guarded('sendResource', (call, argsJson) => {
        const name = textOf(call);
        const json = textOf(argsJson);
        if (name === undefined || json === undefined || !isResourceCall(name)) return refuse();
        const problem = checkArgs(json);
        return problem === '' ? this.vm.newNumber(this.send(name, json, true)) : this.vm.newString(problem);
      }),
      checkArgs: guarded('checkArgs', (argsJson) => {
        const json = textOf(argsJson);
        return json === undefined ? refuse() : this.vm.newString(checkArgs(json));
      }),
      out: guarded('out', (text) => {
        const written = textOf(text);
        if (written === undefined) return refuse();
        if (!this.ended) {
          this.output.write(written);
          // Output waits for a batch, but never longer than OUTPUT_FLUSH_MS when the script prints again.
          if (this.output.flushIfStale(performance.now())) this.hooks.channel.flush();
        }
        return this.vm.undefined;
      }),
      notify: guarded('notify', (payload) => {
        const json = textOf(payload);
        return json === undefined ? refuse() : this.vm.newString(this.notify(json));
      }),
      setTimer: guarded('setTimer', (ms) => {
        const delay = numberOf(ms);
        return delay === undefined ? refuse() : this.vm.newNumber(this.setTimer(delay));
      }),
      clearTimer: guarded('clearTimer', (id) => {
        const timerId = numberOf(id);
        if (timerId === undefined) return refuse();
        clearTimeout(this.timers.get(timerId));
        this.timers.delete(timerId);
        return this.vm.undefined;
      }),
      search: guarded('search', (query, limit) => {
        const text = textOf(query);
        const max = numberOf(limit);
        if (text === undefined || max === undefined) return refuse();
        // Not JSON: what the prelude throws.
        const problem = searchQueryProblem(text);
        if (problem !== undefined) return this.vm.newString(problem);
        return this.vm.newString(JSON.stringify(searchTools(this.catalog.tools, text, max)));
      }),
      closest: guarded('closest', (name) => {
        const wanted = textOf(name);
        return wanted === undefined ? refuse() : this.vm.newString(closestHint(wanted, this.catalog.names));
      }),
      show: guarded('show', (blocks) => {
        const json = textOf(blocks);
        return json === undefined ? refuse() : this.vm.newString(this.show(json));
      }),
    };
  }

  /** Sends the blocks the prelude copied for the answer: '' when sent, else what the script is told. */
  private show(blocksJson: string): string {
    const { showMaxBytes } = this.hooks.options;
    if (showMaxBytes === 0) return 'show(x): show is off on this server (its showMaxBytes setting is 0)';
    const bytes = Buffer.byteLength(blocksJson, 'utf8');
    if (bytes > showMaxBytes) {
      return `show(x): the blocks are ${bytes} bytes of JSON, past the ${showMaxBytes} an answer may carry (the server's showMaxBytes); nothing was shown`;
    }
    const notBase64 = firstNotBase64(JSON.parse(blocksJson) as ShownBlock[]);
    if (notBase64 !== undefined) return `show(x): ${notBase64} is not base64; nothing was shown`;
    if (this.ended) return '';
    this.output.flush();
    this.hooks.channel.send({ t: 'show', blocks: blocksJson });
    return '';
  }

  private send(tool: string, argsJson: string, resource = false): number {
    const id = ++this.lastCallId;
    if (this.ended) return id;
    this.output.flush();
    this.hooks.channel.send({ t: 'call', id, tool, args: argsJson, ...(resource ? { resource: true as const } : {}) });
    // At once, not at the end of the turn: the script may go on computing for seconds in native
    // code that no interrupt check sees, and its call should be running meanwhile.
    this.hooks.channel.flush();
    return id;
  }

  private notify(payloadJson: string): string {
    const { notifyMax } = this.hooks.options;
    if (notifyMax === 0) return 'notify is off on this server (its notifyMax setting is 0)';
    if (this.notifies >= notifyMax) return `notify: this script has used all ${notifyMax} of its notifies`;
    const now = performance.now();
    if (now - this.lastNotifyAt < NOTIFY_SPACING_MS) return NOTIFY_SKIPPED;
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
      let text: string;
      try {
        text = this.callString('format', reason);
      } catch {
        text = '(a rejection that could not be printed)';
      }
      this.output.write(`Uncaught (in promise) ${text}\n`);
    }
    this.unhandled.clear();
  }
}

/** A block as the prelude copied it: only its base64 fields are read here. */
interface ShownBlock {
  readonly data?: string;
  readonly resource?: { readonly blob?: string };
}

/**
 * The first base64 field of the blocks that is not base64 (`the data of block 2`), if any, by
 * atob's rule: the one the server checks them by (the MCP SDK's Base64Schema), so that a script
 * learns it here rather than losing its answer.
 */
function firstNotBase64(blocks: readonly ShownBlock[]): string | undefined {
  for (const [index, block] of blocks.entries()) {
    for (const [field, value] of [
      ['data', block.data],
      ['resource.blob', block.resource?.blob],
    ] as const) {
      if (value === undefined) continue;
      try {
        atob(value);
      } catch {
        return `the ${field} of block ${index + 1}`;
      }
    }
  }
  return undefined;
}

/** A host function's argument, when it is a string: tested by the engine, so no script code runs. */
function textOf(handle: JSValueHandle | undefined): string | undefined {
  return handle !== undefined && handle.isString ? readGuestString(handle) : undefined;
}

function isResourceCall(name: string): boolean {
  return (RESOURCE_CALLS as readonly string[]).includes(name);
}

/** A host function's argument, when it is a number. */
function numberOf(handle: JSValueHandle | undefined): number | undefined {
  return handle !== undefined && handle.isNumber ? handle.toNumber() : undefined;
}

/** The tools a script may list and search: the catalog less the denied ones. */
function catalogOf(toolsJson: string): Catalog {
  const tools = (JSON.parse(toolsJson) as ToolEntry[]).filter((tool) => tool.denied !== true);
  return { tools, names: tools.map((tool) => tool.name) };
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
