import { FetchRefusedError, RefusedError, SkillsFailedError, StateFailedError, ToolRefusedError } from '../support/errors.js';
import { CallRecord, type OpenCall } from './call-record.js';
import type { AdmittedCall } from './call-policy.js';
import type { ScriptChannel } from './channel.js';
import { failedRead, resultFrame } from './result-frame.js';
import type { ScriptApis } from './apis.js';

export interface CallDispatchOptions {
  readonly apis: ScriptApis;
  readonly toolCallTimeoutMs: number;
  /** The script's memory: a result past a third of it is too large (protocol/contract.ts). */
  readonly memoryMaxBytes: number;
}

/** How an API the server answers itself is refused when it is off, and what its backend's failure becomes. */
interface ServedApi {
  readonly off: 'STATE_OFF' | 'SKILLS_OFF';
  readonly offReason: string;
  readonly failed: (label: string, error: unknown) => RefusedError;
}

const STATE_API: ServedApi = {
  off: 'STATE_OFF',
  offReason: 'this server was started without memory between scripts',
  failed: (label, error) => new StateFailedError(label, error),
};

const SKILLS_API: ServedApi = {
  off: 'SKILLS_OFF',
  offReason: 'this server was started without skills',
  failed: (label, error) => new SkillsFailedError(label, error),
};

/**
 * Runs a script's admitted calls against the tools, resources and state, and sends the child each
 * outcome: the result, a refusal, a timeout (the call's place stays held) or, for a call that
 * timed out and was then answered, the release of its place. Every call is kept in the record.
 */
export class CallDispatch {
  readonly record: CallRecord;

  constructor(
    private readonly channel: Pick<ScriptChannel, 'send'>,
    private readonly options: CallDispatchOptions,
  ) {
    this.record = new CallRecord(options.toolCallTimeoutMs, (call) => this.onTimeout(call));
  }

  dispatch(call: AdmittedCall): void {
    if (call.kind === 'tool') {
      const open = this.record.opened(call.id, call.tool, call.argsJson);
      const hold = { hold: () => this.record.holdTimeout(open), release: () => this.record.releaseTimeout(open) };
      return this.answerWith(open, () => this.options.apis.tools(call.tool, call.args, this.record.signal, hold));
    }
    const { state, skills, resources, fetch } = this.options.apis;
    if (call.kind === 'fetch') {
      const { request } = call;
      const open = this.record.opened(call.id, 'fetch', call.argsJson, request.label);
      const hold = { hold: () => this.record.holdTimeout(open), release: () => this.record.releaseTimeout(open) };
      return this.answerWith(
        open,
        () =>
          fetch?.(request, this.record.signal, hold) ??
          Promise.reject(
            new FetchRefusedError(
              'FETCH_ORIGIN',
              request.label.replace(/^fetch /, ''),
              'this server lists no origins scripts may fetch; add them under settings.fetch in the config file',
            ),
          ),
        // Past the fetcher's own failures (which it answers as `failed`): a TypeError in the script all the same.
        (error) => ({ failed: error instanceof Error ? error.message : String(error), isError: true }),
      );
    }
    if (call.kind === 'state') {
      const { request } = call;
      const open = this.record.opened(call.id, request.call, call.argsJson, request.label, false);
      return this.answerWith(open, () =>
        this.callServed(request.label, state && ((signal) => state(request, signal)), STATE_API),
      );
    }
    if (call.kind === 'skills') {
      const { request } = call;
      const open = this.record.opened(call.id, request.call, call.argsJson, request.label, false);
      return this.answerWith(open, () =>
        this.callServed(request.label, skills && ((signal) => skills(request, signal)), SKILLS_API),
      );
    }
    const { label } = call;
    const open = this.record.opened(call.id, call.call, call.argsJson, label);
    const request = { call: call.call, label, ...(call.uri !== undefined ? { uri: call.uri } : {}) };
    this.answerWith(
      open,
      () =>
        resources?.(request, this.record.signal) ??
        Promise.reject(new ToolRefusedError('RESOURCE_UNKNOWN', label, 'this server was started without access to resources')),
      failedRead,
    );
  }

  /**
   * A call of an API the server answers itself (state, skills): refused when this server gives
   * scripts none, and a backend's failure is the script's ToolRefused too, saying so.
   */
  private async callServed(
    label: string,
    answer: ((signal: AbortSignal) => Promise<unknown>) | undefined,
    api: ServedApi,
  ): Promise<unknown> {
    if (answer === undefined) throw new ToolRefusedError(api.off, label, api.offReason);
    try {
      return await answer(this.record.signal);
    } catch (error) {
      throw error instanceof RefusedError ? error : api.failed(label, error);
    }
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
    const ms = this.options.toolCallTimeoutMs;
    this.channel.send({
      t: 'result',
      id: call.id,
      kind: 'timeout',
      message:
        `${call.label ?? `tools[${JSON.stringify(call.tool)}]`} took longer than ${ms} ms (the server's toolCallTimeoutMs); ` +
        'it may still be running and may take effect',
    });
  }

  /** Once the script has ended, no call is open (CallRecord.cancelOpen): its answers are dropped. */
  private onAnswer(
    call: OpenCall,
    outcome: { result: unknown } | { error: unknown },
    failure?: (error: unknown) => unknown,
  ): void {
    if (!this.record.isOpen(call.id)) return;
    if (!this.record.closed(call)) {
      this.channel.send({ t: 'release', id: call.id });
      return;
    }
    const frame = resultFrame(call.id, outcome, this.options.memoryMaxBytes, failure);
    const denied = 'error' in outcome && outcome.error instanceof ToolRefusedError && outcome.error.code === 'APPROVAL_DENIED';
    this.record.answerSent(call, frame.message.kind === 'refused', denied);
    this.channel.send(frame.message, frame.payload, () => this.record.answerWritten());
  }
}
