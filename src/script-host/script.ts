import {
  BREACH,
  NOTIFY_SPACING_MS,
  RESOURCE_CALLS,
  type Breach,
  type ChildMessage,
  type EndMessage,
  type ToolEntry,
} from '../../protocol/contract.js';
import { settleWithin } from '../support/settle.js';
import { describeError } from '../support/errors.js';
import { CallDispatch } from './call-dispatch.js';
import { CallPolicy } from './call-policy.js';
import type { ScriptChannel } from './channel.js';
import { parseUnsent, stopMessage, stoppedAtExit, type Ending } from './ending.js';
import { OutputWindow } from './output-window.js';
import { scriptTools, type ScriptTools } from './script-tools.js';
import { ShownBlocks, liftResultBlocks, parseShownBlocks } from './shown-blocks.js';
import { StopSequence } from './stop-sequence.js';
import type { ScriptApis } from './apis.js';
import type { CallSummary, ScriptReturn, ScriptStatus, StopReason } from './types.js';
import { deferred } from '../support/deferred.js';

export interface ScriptLimits {
  readonly toolCallTimeoutMs: number;
  readonly scriptLifetimeMs: number;
  readonly memoryMaxBytes: number;
  readonly notifyMax: number;
  /** Bytes of content blocks one answer carries; past it they are left out and counted. */
  readonly showMaxBytes: number;
}

export interface ScriptOptions {
  readonly id: string;
  readonly code: string;
  readonly tools: readonly ToolEntry[];
  /** Name prefixes of upstreams that have not listed their tools yet ('' for the only upstream). */
  readonly unlisted?: readonly string[];
  /** What the script's calls reach (apis.ts). */
  readonly apis: ScriptApis;
  readonly limits: ScriptLimits;
  /** Output as it arrives, for progress notifications while a call watches the script. */
  readonly onOutput?: (text: string) => void;
  /** A notify() payload (JSON text) as it arrives, for the client. */
  readonly onNotify?: (payloadJson: string) => void;
}

/**
 * The parent side of one script: it gives a ready child the script, hears the child's messages
 * (its calls go to CallPolicy and CallDispatch, its stop to StopSequence), keeps what the script
 * printed, notified and showed until a return takes it, and holds the ending.
 */
export class Script {
  readonly id: string;
  private readonly endedMark = deferred();
  /** Resolves once the script has ended (in any way). */
  readonly ended: Promise<void> = this.endedMark.promise;
  private ending: Ending | null = null;
  private readonly output = new OutputWindow();
  private notifications: string[] = [];
  private readonly shown: ShownBlocks;
  private readonly tools: ScriptTools;
  private readonly unlisted: readonly string[];
  private readonly policy: CallPolicy;
  private readonly calls: CallDispatch;
  private readonly stopping: StopSequence;
  private notifies = 0;
  /** The latest notify() payload (JSON), kept past takeReturn for a task's status line. */
  private latestNotify: string | undefined;
  private readonly startedAt = performance.now();

  constructor(
    private readonly channel: ScriptChannel,
    private readonly options: ScriptOptions,
  ) {
    this.id = options.id;
    const { limits } = options;
    this.shown = new ShownBlocks(limits.showMaxBytes);
    this.tools = scriptTools(options.tools);
    this.unlisted = options.unlisted ?? [];
    this.policy = new CallPolicy((tool) => this.gives(tool));
    this.calls = new CallDispatch(channel, {
      apis: options.apis,
      toolCallTimeoutMs: limits.toolCallTimeoutMs,
      memoryMaxBytes: limits.memoryMaxBytes,
    });
    // The lifetime starts here: the child strips TypeScript's types (engine/strip-types.ts) on the script's own time.
    this.stopping = new StopSequence(channel, limits.scriptLifetimeMs, () => this.stop('lifetime'));
    channel.listen({
      message: (message) => this.onMessage(message),
      breach: (reason) => this.breach(reason),
      exit: () => this.onExit(),
    });
    channel.ready.catch((error: unknown) => this.crash(describeError(error)));
    // Sent at once, the script as the user wrote it: a child still starting reads it as soon as its
    // VM is made, a round trip sooner than waiting for its ready.
    channel.start(options.code, this.tools.json, this.unlisted);
  }

  get status(): ScriptStatus {
    return this.ending?.status ?? 'running';
  }

  /** UTF-8 bytes of the value the script returned (its JSON text); undefined while running or when it returned none. */
  get valueBytes(): number | undefined {
    const value = this.ending?.value;
    return value === undefined ? undefined : Buffer.byteLength(value, 'utf8');
  }

  /** Watches the script until it ends, `boundMs` passes or `signal` aborts; then returns what is new. */
  async observe(boundMs: number, signal?: AbortSignal): Promise<ScriptReturn> {
    await this.watch(boundMs, signal);
    return this.takeReturn();
  }

  /** Resolves when the script has ended, `boundMs` (may be Infinity) has passed or `signal` aborts. */
  async watch(boundMs: number, signal?: AbortSignal): Promise<void> {
    if (this.ending !== null || boundMs <= 0) return;
    await settleWithin(this.ended, { ms: boundMs, signal });
  }

  /** Stops the script: the stop file and a stop frame, then a kill after the grace (StopSequence). */
  stop(reason: StopReason): void {
    if (this.ending === null) this.stopping.stop(reason);
  }

  /** How far the script has got, taking nothing: its calls so far, and its latest notify() payload (JSON). */
  progress(): { readonly calls: CallSummary; readonly latestNotify?: string } {
    return {
      calls: this.calls.record.summary(),
      ...(this.latestNotify !== undefined ? { latestNotify: this.latestNotify } : {}),
    };
  }

  /** What is new since the last return (output, notifications), and the ending once there is one. */
  takeReturn(): ScriptReturn {
    const ending = this.ending;
    const status = ending?.status ?? 'running';
    const stopReason = this.stopping.reason;
    const notifications = this.notifications;
    this.notifications = [];
    return {
      script: this.id,
      status,
      calls: this.calls.record.summary(),
      ...(ending?.value !== undefined ? { value: ending.value } : {}),
      ...(ending?.error !== undefined ? { error: ending.error } : {}),
      ...(status === 'stopped' && stopReason !== null ? { stopReason } : {}),
      output: this.output.take(),
      notifications,
      shown: this.shown.take(),
      isError: status === 'failed' || status === 'crashed' || (status === 'stopped' && stopReason === 'lifetime'),
    };
  }

  private onMessage(message: ChildMessage): void {
    if (this.ending !== null) return;
    switch (message.t) {
      case 'call': {
        const call = this.policy.admit(message, this.calls.record.openCount);
        return 'breach' in call ? this.breach(call.breach) : this.calls.dispatch(call);
      }
      case 'out':
        this.output.append(message.text);
        this.options.onOutput?.(message.text);
        return;
      case 'notify':
        return this.onNotify(message.payload);
      case 'show':
        return this.onShow(message.blocks);
      case 'end':
        return this.onEnd(message);
      default:
        return this.breach('MESSAGE_UNEXPECTED');
    }
  }

  /**
   * The child spaces notifies by its own clock; frames can arrive bunched after a stall of this
   * process, so the check is a budget since the start (one now, one more per spacing), not a gap.
   */
  private onNotify(payload: string): void {
    const budget = 2 + Math.floor((performance.now() - this.startedAt) / NOTIFY_SPACING_MS);
    if (this.notifies >= this.options.limits.notifyMax || this.notifies >= budget) return this.breach('TOO_MANY_NOTIFIES');
    this.notifies++;
    this.notifications.push(payload);
    this.latestNotify = payload;
    this.options.onNotify?.(payload);
  }

  /** Blocks for the answer, as the prelude copied them (check-message has checked their shape). */
  private onShow(blocks: string): void {
    // The child was told the cap: one show past it is a child that did not check.
    if (Buffer.byteLength(blocks, 'utf8') > this.options.limits.showMaxBytes) return this.breach('SHOW_INVALID');
    this.shown.add(parseShownBlocks(blocks) ?? []);
  }

  private onEnd(message: EndMessage): void {
    const { record } = this.calls;
    if (message.read !== undefined && !record.noteAnswersRead(message.read)) return this.breach('MESSAGE_UNEXPECTED');
    if (message.unsent !== undefined) {
      // Counted by name: a tool's, or a resources call's.
      const unsent = parseUnsent(
        message.unsent,
        this.tools.names.size + RESOURCE_CALLS.length,
        (name) => this.gives(name) || RESOURCE_CALLS.some((call) => call === name),
      );
      if (unsent === null) return this.breach('MESSAGE_UNEXPECTED');
      record.noteUnsent(unsent);
    }
    const stopReason = this.stopping.reason;
    if (message.status === 'stopped' && stopReason === null) return this.breach('MESSAGE_UNEXPECTED');
    const stopped = message.status === 'stopped';
    const error = message.error;
    // A returned tool result's images and resources go into the answer as blocks, once.
    const value = message.value === undefined ? undefined : liftResultBlocks(message.value, this.shown);
    this.end({
      status: message.status,
      ...(value !== undefined ? { value } : {}),
      ...(error !== undefined
        ? { error }
        : stopped
          ? { error: stopMessage(stopReason, this.options.limits.scriptLifetimeMs) }
          : {}),
    });
    // The child exits once released (ScriptChild.release), or is killed.
    this.stopping.childEnded();
  }

  /** An exit before the child said how its script ended: a stopped script's end, or a crash. */
  private onExit(): void {
    this.stopping.childEnded();
    const { reason, killedAfterStop } = this.stopping;
    if (reason === null)
      return this.crash(`the script's process crashed: ${BREACH.EXIT_BEFORE_END}${this.channel.describeExit()}`);
    this.end(stoppedAtExit(reason, killedAfterStop, this.options.limits.scriptLifetimeMs));
  }

  /** A name the script was given, or one under an upstream that hasn't listed its tools yet. */
  private gives(tool: string): boolean {
    return this.tools.names.has(tool) || this.unlisted.some((prefix) => tool.startsWith(prefix));
  }

  private breach(reason: Breach): void {
    this.crash(`the script's process broke the protocol: ${BREACH[reason]}`);
  }

  private crash(reason: string): void {
    if (this.ending !== null) return;
    this.channel.kill();
    this.end({ status: 'crashed', error: reason });
  }

  private end(ending: Ending): void {
    if (this.ending !== null) return;
    this.ending = ending;
    this.stopping.scriptEnded();
    this.calls.record.cancelOpen();
    this.endedMark.resolve();
  }
}
