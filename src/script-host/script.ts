import {
  BREACH,
  CALLS_IN_FLIGHT_MAX,
  CALL_ARGS_MAX_BYTES,
  CALL_ARGS_MAX_VALUES,
  NOTIFY_SPACING_MS,
  RESOURCE_CALLS,
  type Breach,
  type CallMessage,
  type ChildMessage,
  type EndMessage,
  type ToolEntry,
} from '../../protocol/contract.js';
import { countJsonValues, parseCountedJson } from '../../protocol/frames.js';
import { CallRecord, type OpenCall } from './call-record.js';
import { OutputWindow } from './output-window.js';
import { resultFrame } from './result-frame.js';
import type { ScriptChild } from './script-child.js';
import { scriptTools, type ScriptTools } from './script-tools.js';
import { ShownBlocks, liftResultBlocks, parseShownBlocks } from './shown-blocks.js';
import { ToolRefusedError } from '../support/errors.js';
import { cutText } from './render.js';
import { failedRead } from './result-frame.js';
import type { ResourceCaller, ScriptReturn, ScriptStatus, StopReason, ToolCaller } from './types.js';

/**
 * 400 ms: a stopped child that hasn't ended by then is killed, so a stop lands within half a
 * second whatever the script does (a loop of long native calls sees no interrupt check for
 * seconds). A computing script ends at its next interrupt check, an idle one at once; one that is
 * killed loses the output it printed since its last batch and the count of calls it never sent.
 */
export const STOP_GRACE_MS = 400;

/** Distinct names under unlisted upstreams' prefixes an ending's count of unsent calls may hold, beyond the catalog. */
const UNLISTED_NAMES_MAX = 1_000;

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
  readonly callTool: ToolCaller;
  /** How `resources` calls reach the upstreams; absent, each is refused (RESOURCE_UNKNOWN). */
  readonly callResource?: ResourceCaller;
  readonly limits: ScriptLimits;
  /** Output as it arrives, for progress notifications while a call watches the script. */
  readonly onOutput?: (text: string) => void;
  /** A notify() payload (JSON text) as it arrives, for the client. */
  readonly onNotify?: (payloadJson: string) => void;
}

interface Ending {
  readonly status: Exclude<ScriptStatus, 'running'>;
  readonly value?: string;
  readonly error?: string;
}

/**
 * The parent side of one script: it gives a ready child the script, runs the script's calls
 * against the tools, keeps its output and call record, stops it, and answers observations.
 */
export class Script {
  readonly id: string;
  /** Resolves once the script has ended (in any way). */
  readonly ended: Promise<void>;
  private markEnded!: () => void;
  private ending: Ending | null = null;
  private stopReason: StopReason | null = null;
  private readonly output = new OutputWindow();
  private notifications: string[] = [];
  private readonly shown: ShownBlocks;
  private readonly record: CallRecord;
  private readonly tools: ScriptTools;
  private readonly unlisted: readonly string[];
  private notifies = 0;
  private readonly startedAt = performance.now();
  /** The child numbers its calls 1, 2, 3…: an id not above the last is reused or out of order. */
  private lastCallId = 0;
  private lifetimeTimer: NodeJS.Timeout | undefined;
  private killTimer: NodeJS.Timeout | undefined;
  /** Set when the child was killed after a stop: its output may be cut short. */
  private killedAfterStop = false;

  constructor(
    private readonly child: ScriptChild,
    private readonly options: ScriptOptions,
  ) {
    this.id = options.id;
    this.record = new CallRecord(options.limits.toolCallTimeoutMs, (call) => this.onTimeout(call));
    this.shown = new ShownBlocks(options.limits.showMaxBytes);
    this.tools = scriptTools(options.tools);
    this.unlisted = options.unlisted ?? [];
    this.ended = new Promise((resolve) => (this.markEnded = resolve));
    child.listen({
      message: (message) => this.onMessage(message),
      breach: (reason) => this.crash(`the script's process broke the protocol: ${BREACH[reason]}`),
      exit: () => this.onExit(),
    });
    child.ready.catch((error: Error) => this.crash(error.message));
    this.begin();
  }

  /**
   * Sends the script to its child as the user wrote it: the child strips TypeScript's types
   * (engine/strip-types.ts), on the script's own time, so the lifetime starts here.
   */
  private begin(): void {
    this.lifetimeTimer = setTimeout(() => this.stop('lifetime'), this.options.limits.scriptLifetimeMs);
    this.lifetimeTimer.unref();
    // Sent at once: a child still starting reads it as soon as its VM is made, a round trip sooner
    // than waiting for its ready.
    this.child.start(this.options.code, this.tools.json, this.unlisted);
  }

  get status(): ScriptStatus {
    return this.ending?.status ?? 'running';
  }

  /** Watches the script until it ends, `boundMs` passes or `signal` aborts; then returns what is new. */
  async observe(boundMs: number, signal?: AbortSignal): Promise<ScriptReturn> {
    await this.watch(boundMs, signal);
    return this.takeReturn();
  }

  /** Resolves when the script has ended, `boundMs` (may be Infinity) has passed or `signal` aborts. */
  async watch(boundMs: number, signal?: AbortSignal): Promise<void> {
    if (this.ending !== null || boundMs <= 0 || signal?.aborted) return;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    await Promise.race([
      this.ended,
      new Promise<void>((resolve) => {
        if (Number.isFinite(boundMs)) timer = setTimeout(resolve, boundMs);
        onAbort = resolve;
        signal?.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }

  /** Stops the script: the stop file and a stop frame, then a kill after STOP_GRACE_MS. */
  stop(reason: StopReason): void {
    if (this.ending !== null || this.stopReason !== null) return;
    this.stopReason = reason;
    this.child.createStopFile();
    this.child.send({ t: 'stop' });
    this.killTimer = setTimeout(() => {
      this.killedAfterStop = true;
      this.child.kill();
    }, STOP_GRACE_MS);
  }

  /** What is new since the last return (output, notifications), and the ending once there is one. */
  takeReturn(): ScriptReturn {
    const ending = this.ending;
    const status = ending?.status ?? 'running';
    const notifications = this.notifications;
    this.notifications = [];
    return {
      script: this.id,
      status,
      calls: this.record.summary(),
      ...(ending?.value !== undefined ? { value: ending.value } : {}),
      ...(ending?.error !== undefined ? { error: ending.error } : {}),
      ...(status === 'stopped' && this.stopReason !== null ? { stopReason: this.stopReason } : {}),
      output: this.output.take(),
      notifications,
      shown: this.shown.take(),
      isError: status === 'failed' || status === 'crashed' || (status === 'stopped' && this.stopReason === 'lifetime'),
    };
  }

  private onMessage(message: ChildMessage): void {
    if (this.ending !== null) return;
    switch (message.t) {
      case 'call':
        return this.onCall(message);
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

  private onCall(message: CallMessage): void {
    if (message.resource !== true && !this.gives(message.tool)) return this.breach('TOOL_NOT_GIVEN');
    if (message.id <= this.lastCallId) return this.breach('CALL_ID_REUSED');
    this.lastCallId = message.id;
    if (this.record.openCount >= CALLS_IN_FLIGHT_MAX) return this.breach('TOO_MANY_CALLS');
    if (Buffer.byteLength(message.args, 'utf8') > CALL_ARGS_MAX_BYTES) return this.breach('ARGS_TOO_LARGE');
    if (countJsonValues(message.args, CALL_ARGS_MAX_VALUES) > CALL_ARGS_MAX_VALUES) {
      return this.breach('ARGS_TOO_MANY_VALUES');
    }
    let args: unknown;
    try {
      args = JSON.parse(message.args);
    } catch {
      return this.breach('ARGS_INVALID');
    }
    if (typeof args !== 'object' || args === null || Array.isArray(args)) return this.breach('ARGS_INVALID');
    if (message.resource === true) return this.onResourceCall(message, args as Record<string, unknown>);

    const call = this.record.opened(message.id, message.tool, message.args);
    this.answerWith(call, () => this.options.callTool(message.tool, args as Record<string, unknown>, this.record.signal));
  }

  /** A call of the `resources` API: its name and arguments are the prelude's, so anything else is a breach. */
  private onResourceCall(message: CallMessage, args: Record<string, unknown>): void {
    const resourceCall = RESOURCE_CALLS.find((name) => name === message.tool);
    const keys = Object.keys(args);
    const uri = args.uri;
    const fits = resourceCall === 'resources.read' ? keys.length === 1 && typeof uri === 'string' : keys.length === 0;
    if (resourceCall === undefined || !fits) return this.breach('RESOURCE_CALL_UNKNOWN');
    const label = resourceCall === 'resources.read' ? `resources.read(${cutText(JSON.stringify(uri))})` : `${resourceCall}()`;
    const call = this.record.opened(message.id, resourceCall, message.args, label);
    const { callResource } = this.options;
    this.answerWith(
      call,
      () =>
        callResource?.({ call: resourceCall, label, ...(typeof uri === 'string' ? { uri } : {}) }, this.record.signal) ??
        Promise.reject(new ToolRefusedError('RESOURCE_UNKNOWN', label, 'this server was started without access to resources')),
      failedRead,
    );
  }

  /** Sends the call's outcome to the script when it comes; `failure`: what a failure after sending becomes (a tool's isError result by default). */
  private answerWith(call: OpenCall, send: () => Promise<unknown>, failure?: (error: unknown) => unknown): void {
    let answer: Promise<unknown>;
    try {
      answer = send();
    } catch (error) {
      answer = Promise.reject(error);
    }
    answer.then(
      (result) => this.onAnswer(call, { result }, failure),
      (error: unknown) => this.onAnswer(call, { error }, failure),
    );
  }

  private onTimeout(call: OpenCall): void {
    const ms = this.options.limits.toolCallTimeoutMs;
    this.child.send({
      t: 'result',
      id: call.id,
      kind: 'timeout',
      message:
        `${call.label ?? `tools[${JSON.stringify(call.tool)}]`} took longer than ${ms} ms (the server's toolCallTimeoutMs); ` +
        'it may still be running and may take effect',
    });
  }

  private onAnswer(
    call: OpenCall,
    outcome: { result: unknown } | { error: unknown },
    failure?: (error: unknown) => unknown,
  ): void {
    if (this.ending !== null || !this.record.isOpen(call.id)) return;
    if (!this.record.closed(call)) {
      this.child.send({ t: 'release', id: call.id });
      return;
    }
    const frame = resultFrame(call.id, outcome, this.options.limits.memoryMaxBytes, failure);
    this.record.answerSent(call, frame.message.kind === 'refused');
    this.child.send(frame.message, frame.payload, () => this.record.answerWritten());
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
    this.options.onNotify?.(payload);
  }

  /** Blocks for the answer, as the prelude copied them (check-message has checked their shape). */
  private onShow(blocks: string): void {
    // The child was told the cap: one show past it is a child that did not check.
    if (Buffer.byteLength(blocks, 'utf8') > this.options.limits.showMaxBytes) return this.breach('SHOW_INVALID');
    this.shown.add(parseShownBlocks(blocks) ?? []);
  }

  private onEnd(message: EndMessage): void {
    if (message.read !== undefined && !this.record.noteAnswersRead(message.read)) return this.breach('MESSAGE_UNEXPECTED');
    if (message.unsent !== undefined) {
      // Counted by name: a tool's, or a resources call's.
      const unsent = parseCounts(
        message.unsent,
        this.tools.names.size + RESOURCE_CALLS.length,
        (name) => this.gives(name) || RESOURCE_CALLS.some((call) => call === name),
      );
      if (unsent === null) return this.breach('MESSAGE_UNEXPECTED');
      this.record.noteUnsent(unsent);
    }
    if (message.status === 'stopped' && this.stopReason === null) return this.breach('MESSAGE_UNEXPECTED');
    const stopped = message.status === 'stopped';
    const error = message.error;
    // A returned tool result's images and resources go into the answer as blocks, once.
    const value = message.value === undefined ? undefined : liftResultBlocks(message.value, this.shown);
    this.end({
      status: message.status,
      ...(value !== undefined ? { value } : {}),
      ...(error !== undefined ? { error } : stopped ? { error: this.stopMessage() } : {}),
    });
    // The stop's grace, if any, is over: the child exits once released (ScriptChild.release), or is killed.
    clearTimeout(this.killTimer);
  }

  private onExit(): void {
    clearTimeout(this.killTimer);
    if (this.ending !== null) return;
    if (this.stopReason !== null) {
      const cut = this.killedAfterStop
        ? ` It did not stop within ${STOP_GRACE_MS} ms and was killed: output from its last moments, and calls it made but never sent, may be missing.`
        : '';
      this.end({ status: 'stopped', error: this.stopMessage() + cut });
      return;
    }
    this.crash(`the script's process crashed: ${BREACH.EXIT_BEFORE_END}${this.child.describeExit()}`);
  }

  /** A name the script was given, or one under an upstream that hasn't listed its tools yet. */
  private gives(tool: string): boolean {
    return this.tools.names.has(tool) || this.unlisted.some((prefix) => tool.startsWith(prefix));
  }

  private stopMessage(): string {
    switch (this.stopReason) {
      case 'lifetime':
        return `Stopped at its lifetime of ${this.options.limits.scriptLifetimeMs} ms (the server's scriptLifetimeMs).`;
      case 'watch-cancelled':
        return 'Stopped: the client cancelled the call that watched it before it had returned anything.';
      case 'shutdown':
        return 'Stopped: the server is shutting down.';
      default:
        return 'Stopped, as asked.';
    }
  }

  private breach(reason: Breach): void {
    this.crash(`the script's process broke the protocol: ${BREACH[reason]}`);
  }

  private crash(reason: string): void {
    if (this.ending !== null) return;
    this.child.kill();
    this.end({ status: 'crashed', error: reason });
  }

  private end(ending: Ending): void {
    if (this.ending !== null) return;
    this.ending = ending;
    clearTimeout(this.lifetimeTimer);
    this.record.cancelOpen();
    this.markEnded();
  }
}

/** A {tool: count} object of the script's own tools, or null when it is anything else. */
function parseCounts(text: string, toolCount: number, given: (tool: string) => boolean): Record<string, number> | null {
  const parsed = parseCountedJson(text, 2 * (toolCount + UNLISTED_NAMES_MAX) + 1)?.value;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
  for (const [tool, count] of Object.entries(parsed)) {
    if (!given(tool) || !Number.isSafeInteger(count) || (count as number) < 0) return null;
  }
  return parsed as Record<string, number>;
}
