import { randomFillSync } from 'node:crypto';
import { JSException, type JSValueHandle } from 'quickjs-wasi';
import { SCRIPT_FILE } from '../common/script-position.js';
import type { EntryMethod } from '../common/seam.js';
import type { ChildOptions } from '../protocol/contract.js';
import type { MessageSink } from './channel.js';
import { NOT_A_BODY, STALLED, describeException, endMessage, failureOf, quoteStringValue, type Ending } from './ending.js';
import { newGuestStringFromUtf8 } from './guest-string.js';
import { bridgeHost } from './host/bridge.js';
import { CallSender, checkArgs } from './host/calls.js';
import { ScriptCatalog } from './host/catalog.js';
import { Notifier } from './host/notify.js';
import type { HostOutlet } from './host/outlet.js';
import { writeOutput } from './host/output.js';
import { showBlocks } from './host/show.js';
import { stripSkillTypes } from './host/skill-code.js';
import { HostTimers } from './host/timers.js';
import { InterruptPoll } from './interrupt-poll.js';
import { OutputBatcher } from './output-batcher.js';
import { PreludeEntry, type EntryArgs } from './prelude-entry.js';
import {
  evaluatePrelude,
  restorePrelude,
  type HostImpl,
  type PreludeSnapshot,
  type PreludeVm,
  type VmOptions,
} from './prelude-vm.js';
import { mayMeanOtherInTypeScript } from '../common/generic-call.js';
import { wrapScript } from './script-source.js';
import { loadTypeStripper, stripTypes, typeStripperLoaded } from './strip-types.js';
import { UnhandledRejections } from './unhandled-rejections.js';

const PROMISE_FULFILLED = 1;
const PROMISE_REJECTED = 2;

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

/**
 * One script in this child: its VM (made before the script is known, so a pooled child is ready
 * at once), compiled and run, and its ending. The body's promise is watched here, by the
 * engine's own promise state, so no script code decides when the script is over. The host
 * functions are engine/host/'s, the ending's words engine/ending.ts's.
 */
export class ScriptRun {
  private vm!: PreludeVm['vm'];
  private releaseVm!: PreludeVm['release'];
  private entry!: PreludeEntry;
  private readonly output: OutputBatcher;
  private readonly timers = new HostTimers((id) => this.callEntry('fire', this.vm.newNumber(id)));
  private readonly rejections = new UnhandledRejections();
  private readonly catalog = new ScriptCatalog();
  private readonly interrupts: InterruptPoll;
  /** Why the last catalog given could not be made ready in the VM (out of memory, say): the script's start fails with it. */
  private catalogFailure: { readonly error: unknown } | undefined;
  /** The script's body's promise, once it runs. */
  private body: JSValueHandle | null = null;
  private started = false;
  /** The body has settled and its ending is being read: no more calls into the prelude. */
  private settling = false;
  private ended = false;
  /** Set at the ending: the engine is intact, so the child may be reset for another script (protocol/contract.ts, `reset`). */
  private engineIntact = false;
  /** V8's stack ran out inside the engine: the VM was unwound mid-call and must not be entered again. */
  private broken = false;
  /** The script ran the engine out (of memory, of V8's stack) or the engine failed: this child takes no other script. */
  private spent = false;
  /** Answers handed to the script, for its ending: the server names the ones it never read. */
  private answersRead = 0;
  /** `skills.get` calls sent: each answer is held until the type stripper is loaded, so the prelude can strip the skill at once. */
  private readonly skillGets = new Set<number>();

  private constructor(private readonly hooks: ScriptRunHooks) {
    this.output = new OutputBatcher((text) => hooks.channel.send({ t: 'out', text }));
    this.interrupts = new InterruptPoll({
      now: () => performance.now(),
      started: () => this.started,
      check: (now) => {
        if (!hooks.parentAlive()) hooks.exit('parent-gone');
        this.output.flushIfStale(now);
        // Calls and output sent before a loop that never yields go out here, not at the turn's end.
        hooks.channel.flush();
      },
    });
  }

  /** Restores the prelude snapshot (or, without one, evaluates the prelude) into the script's VM. */
  static async create(wasm: WebAssembly.Module, snapshot: PreludeSnapshot | null, hooks: ScriptRunHooks): Promise<ScriptRun> {
    const run = new ScriptRun(hooks);
    const options: VmOptions = {
      memoryLimit: hooks.options.memoryMaxBytes,
      maxStackSize: hooks.options.quickjsStackBytes,
      interruptHandler: () => run.interrupts.shouldInterrupt(),
      onUnhandledRejection: (promise, reason, isHandled) => run.rejections.track(promise, reason, isHandled),
    };
    const host = run.hostFunctions();
    const { vm, entry, release } = snapshot
      ? await restorePrelude(wasm, snapshot, options, host)
      : await evaluatePrelude(wasm, options, host);
    run.vm = vm;
    run.releaseVm = release;
    run.entry = new PreludeEntry(vm, entry);
    return run;
  }

  /**
   * Makes a catalog ready for the script (protocol/contract.ts, `catalog`): in a pooled child while
   * it waits, so the start costs nothing that grows with the catalog. A later one replaces it; once
   * the script has started, none does.
   */
  prepareCatalog(toolsJson: string): void {
    if (this.started || this.ended) return;
    this.catalog.replace(toolsJson);
    this.catalogFailure = undefined;
    try {
      this.entry.call('catalog', this.vm.newString(toolsJson));
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
    // node:crypto, not the global `crypto`: Web Crypto's modules load at their first use, which costs a cold child.
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
    if (kind !== 'timeout' && this.skillGets.delete(id) && !typeStripperLoaded()) {
      const later = (): void => this.deliver(id, kind, payload);
      loadTypeStripper().then(later, later);
      return;
    }
    if (kind !== 'timeout' && kind !== 'release') this.answersRead++;
    const vm = this.vm;
    const text = typeof payload === 'string' ? vm.newString(payload) : newGuestStringFromUtf8(vm, payload);
    this.callEntry('deliver', vm.newNumber(id), vm.newString(kind), text);
  }

  /** The script has ended and left the engine intact: the child may take another script in a fresh VM. */
  get reusable(): boolean {
    return this.ended && this.engineIntact;
  }

  /**
   * Frees the VM and overwrites its memory with zeros (PreludeVm.release): at a reset, before the
   * next script's VM is made in that memory, and after a warm-up run.
   */
  dispose(): void {
    this.releaseVm();
  }

  stop(): void {
    this.interrupts.requestStop();
    if (!this.ended) this.finishStopped();
  }

  /** Stopped: no more of the script runs, but the prelude still counts the calls it never sent. */
  private finishStopped(): void {
    let unsent = '{}';
    if (this.started && !this.broken) {
      try {
        unsent = this.interrupts.collectEnding(() => this.entry.string('unsent'));
      } catch {
        // Out of memory, broken, or past ENDING_COLLECT_MAX_MS: the calls never sent go uncounted.
      }
    }
    this.finish(unsent === '{}' ? { status: 'stopped' } : { status: 'stopped', unsent });
  }

  /** Calls into the prelude, then runs the jobs it queued and sees whether the script is over. False once it is. */
  private callEntry<M extends EntryMethod>(method: M, ...args: EntryArgs<M>): boolean {
    if (this.ended || this.settling) {
      for (const arg of args) arg.dispose();
      return false;
    }
    try {
      this.entry.call(method, ...args);
    } catch (error) {
      this.endWithException(error);
      return false;
    }
    return this.settle();
  }

  /** Runs every pending job, then ends the script if its body has settled and nothing it waits on remains. */
  private settle(): boolean {
    try {
      this.vm.executePendingJobs();
      if (this.body === null) return true;
      const state = this.body.promiseState;
      if (state !== PROMISE_REJECTED && this.entry.number('busy') !== 0) {
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

  /** The body settled: its value as JSON ('' for none), or its error as the script would print it. */
  private async endWithBody(): Promise<void> {
    const settled = await this.vm.resolvePromise(this.body!);
    try {
      if ('error' in settled) {
        this.finish({ status: 'failed', error: this.entry.string('format', settled.error), ...this.unsentField() });
      } else {
        const value = quoteStringValue(settled.value) ?? this.entry.string('valueJson', settled.value);
        this.finish({ status: 'finished', ...(value === '' ? {} : { value }), ...this.unsentField() });
      }
    } catch (error) {
      this.endWithException(error);
    }
  }

  private unsentField(): { unsent?: string } {
    const unsent = this.entry.string('unsent');
    return unsent === '{}' ? {} : { unsent };
  }

  /** `code`, when the exception came from compiling the script (see failureOf). */
  private endWithException(error: unknown, code?: string): void {
    if (this.interrupts.stopped) return this.finishStopped();
    const describe = (exception: JSException): string =>
      describeException(exception, this.hooks.options.memoryMaxBytes, (handle) => this.entry.string('format', handle));
    const { ending, vmBroken, engineSpent } = failureOf(error, describe, code);
    if (vmBroken) this.broken = true;
    if (engineSpent) this.spent = true;
    this.finish(ending);
  }

  private finish(ending: Ending): void {
    if (this.ended) return;
    this.ended = true;
    this.timers.clearAll();
    if (ending.status !== 'stopped' && !this.broken) {
      this.rejections.report(
        (reason) => this.entry.string('format', reason),
        (text) => this.output.write(text),
      );
    }
    this.output.flush();
    // A stopped script may have been cut off anywhere in the engine: its child takes no other script.
    this.engineIntact = ending.status !== 'stopped' && !this.broken && !this.spent;
    const { message, value } = endMessage(ending, this.answersRead, this.engineIntact);
    this.hooks.channel.send(message, value);
    this.hooks.channel.flush();
    this.hooks.exit('ended');
  }

  /** What the prelude calls (common/seam.ts), each family with its policy in engine/host/. */
  private hostFunctions(): HostImpl {
    const { channel, options } = this.hooks;
    const now = (): number => performance.now();
    const outlet: HostOutlet = {
      ended: () => this.ended,
      send: (message) => {
        this.output.flush();
        channel.send(message);
      },
      flush: () => channel.flush(),
    };
    const calls = new CallSender(outlet);
    const notifier = new Notifier(options.notifyMax, outlet, now);
    return bridgeHost(() => this.vm, {
      send: (tool, argsJson) => calls.send(tool, argsJson),
      sendApi: (call, argsJson) => {
        const id = calls.sendApi(call, argsJson);
        if (call === 'skills.get' && typeof id === 'number') {
          this.skillGets.add(id);
          // Loaded while the answer travels; a failure shows when the skill is stripped.
          loadTypeStripper().catch(() => {});
        }
        return id;
      },
      checkArgs,
      out: (text) => writeOutput(text, this.output, outlet, now),
      notify: (payloadJson) => notifier.notify(payloadJson),
      setTimer: (ms) => this.timers.set(ms),
      clearTimer: (id) => this.timers.clear(id),
      search: (query, limit) => this.catalog.search(query, limit),
      closest: (name) => this.catalog.closest(name),
      show: (blocksJson) => showBlocks(blocksJson, options.showMaxBytes, outlet),
      stripTypes: (code) => stripSkillTypes(code),
    });
  }
}
