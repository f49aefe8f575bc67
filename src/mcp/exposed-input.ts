/**
 * An exposed tool called directly by a 2026-07-28 client, whose upstream (speaking 2025) asks the
 * person something mid-call (elicitation, sampling, roots): that revision has no server-to-client
 * requests, so the call answers `input_required` with what was asked and a `requestState` of
 * ours naming the call, the call stays out upstream meanwhile (held by the caller's tasks), and
 * the client's retry brings the answers and waits on the same call again. What the upstream asks
 * is this call's because the call is sent under its key (CallContext.asker, call-origins.ts).
 */
import {
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  inputRequired,
  type CallToolResult,
  type InputRequiredResult,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { CallerTasks, Ended, TaskWork } from './caller-tasks.js';
import type { InputQueue } from './input-queue.js';
import { REQUEST_STATE_TTL_S, foreignState, type ResumeState } from './request-state.js';

export interface ExposedInputDeps {
  readonly tasks: CallerTasks;
  readonly inputs: InputQueue;
  readonly codec: RequestStateCodec<ResumeState>;
}

/** Starts the call (`start`), or on a retry answers what it asked and takes it up again; answers its result or what it asks next. */
export async function exposedCallWithInput(
  { tasks, inputs, codec }: ExposedInputDeps,
  tool: string,
  start: () => TaskWork,
  ctx: ServerContext,
): Promise<CallToolResult | InputRequiredResult> {
  const resumed = ctx.mcpReq.requestState<ResumeState>();
  let work: TaskWork;
  if (resumed === undefined) work = start();
  else {
    if (!('call' in resumed) || resumed.tool !== tool) throw foreignState(resumed);
    const held = inputs.waiting(resumed.keys) ? tasks.takeHeld(resumed.call) : undefined;
    if (held === undefined) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `requestState names a call of ${tool} no longer waiting for these answers (a retry sent twice, or the upstream gave up); call ${tool} again`,
      );
    }
    inputs.answer(resumed.keys, ctx.mcpReq.inputResponses ?? {}, resumed.call);
    work = held;
  }
  const outcome = await endedOrAsked(work, inputs, ctx.mcpReq.signal);
  if (outcome === 'asked') {
    tasks.hold(work, REQUEST_STATE_TTL_S * 1000);
    const requests = inputs.requests(work.key);
    const state: ResumeState = { call: work.key, tool, keys: Object.keys(requests) };
    return inputRequired({ inputRequests: requests, requestState: await codec.mint(state, ctx) });
  }
  if (outcome === 'cancelled') {
    work.cancel();
    throw new ProtocolError(ProtocolErrorCode.InvalidRequest, 'the client cancelled this call');
  }
  if ('refused' in outcome) {
    // The upstream asked what this client can't answer: the call can't complete as the client
    // asked for it, so it ends, and the client gets the protocol's error (-32021) naming what is missing.
    work.cancel();
    throw outcome.refused;
  }
  if (outcome.result !== undefined) return outcome.result;
  throw new ProtocolError(
    outcome.error?.code ?? ProtocolErrorCode.InternalError,
    outcome.error?.message ?? `${tool} was cancelled`,
  );
}

type Outcome = Ended | 'asked' | 'cancelled' | { readonly refused: MissingRequiredClientCapabilityError };

/**
 * Whichever comes first: the call's ending, a request of its upstream for the client, one the
 * client can't be asked, or the client's cancel.
 */
function endedOrAsked(work: TaskWork, inputs: InputQueue, signal: AbortSignal): Promise<Outcome> {
  return new Promise((resolve) => {
    const cleanups: Array<() => void> = [];
    const settle = (outcome: Outcome): void => {
      for (const cleanup of cleanups.splice(0)) cleanup();
      resolve(outcome);
    };
    void work.ended.then(settle);
    cleanups.push(inputs.onAsked((concerns) => (concerns(work.key) ? settle('asked') : undefined)));
    cleanups.push(inputs.onRefused(({ script, error }) => (script === work.key ? settle({ refused: error }) : undefined)));
    if (inputs.asksFor(work.key)) settle('asked');
    const onAbort = (): void => settle('cancelled');
    signal.addEventListener('abort', onAbort, { once: true });
    cleanups.push(() => signal.removeEventListener('abort', onAbort));
  });
}
