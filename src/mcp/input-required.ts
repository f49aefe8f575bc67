/**
 * `code_execution` for a 2026-07-28 client, which takes no server-to-client requests (SEP-2322):
 * when an upstream asks for something (elicitation, sampling, roots) during a script's call, the
 * call watching the script answers `input_required` with the request, the script waits meanwhile,
 * and the client's retry of the same call brings the answer back (`inputResponses`) with the
 * `requestState` we minted: signed, bound to the caller, and naming the script and the requests.
 * The retry then watches that script again, whatever else its arguments say.
 */
import { randomBytes } from 'node:crypto';
import {
  ProtocolError,
  ProtocolErrorCode,
  createRequestStateCodec,
  inputRequired,
  type CallToolResult,
  type InputRequiredResult,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { isInterrupted, type SessionScripts, type WatchContext } from '../scripts/session-scripts.js';
import type { InputQueue } from './input-queue.js';
import type { TraceContext } from '../telemetry/telemetry.js';
import { progressSender } from './tool-calls.js';

/** What a `requestState` of ours carries: the script the retry watches, the requests it answers. */
interface ResumeState {
  readonly script: string;
  readonly keys: readonly string[];
  readonly yieldMs?: number;
}

/**
 * 10 minutes: how long a minted `requestState` is honoured. A person answering an elicitation
 * takes minutes; an upstream's own timeout on its request is the tighter bound in practice.
 */
export const REQUEST_STATE_TTL_S = 600;

/**
 * The codec of this server process: its key is made at start, so only the instance that asked
 * can read the answer (the script waits in that instance anyway). `principal` names the caller a
 * state is bound to, so another principal can't use it.
 */
export function requestStateCodec(principal: (ctx: ServerContext) => string): RequestStateCodec<ResumeState> {
  return createRequestStateCodec<ResumeState>({
    key: randomBytes(32),
    ttlSeconds: REQUEST_STATE_TTL_S,
    bind: (ctx) => `${ctx.mcpReq.method}\0${principal(ctx)}`,
  });
}

export interface InputWatchDeps {
  readonly scripts: SessionScripts;
  readonly inputs: InputQueue;
  readonly codec: RequestStateCodec<ResumeState>;
}

export async function codeExecutionWithInput(
  { scripts, inputs, codec }: InputWatchDeps,
  args: unknown,
  ctx: ServerContext,
  trace?: TraceContext,
): Promise<CallToolResult | InputRequiredResult> {
  const resumed = ctx.mcpReq.requestState<ResumeState>();
  let input = args ?? {};
  if (resumed !== undefined) {
    if (!inputs.waiting(resumed.keys)) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        'requestState names requests already answered or no longer waiting (a retry sent twice, or the upstream gave up); ' +
          `wait on the script instead: {"action": "wait", "script": "${resumed.script}"}`,
      );
    }
    inputs.answer(resumed.keys, ctx.mcpReq.inputResponses ?? {});
    input = { action: 'wait', script: resumed.script, ...(resumed.yieldMs !== undefined ? { yield_ms: resumed.yieldMs } : {}) };
  }
  let interrupt = new AbortController();
  const stopListening = inputs.onAsked(() => interrupt.abort());
  if (inputs.size > 0) interrupt.abort();
  const onProgress = progressSender(ctx);
  let watch: WatchContext = {
    signal: ctx.mcpReq.signal,
    interrupt: interrupt.signal,
    ...(onProgress !== undefined ? { onProgress } : {}),
    ...(trace !== undefined ? { trace } : {}),
  };
  try {
    for (;;) {
      const answer = await scripts.handle(input, watch);
      if (!isInterrupted(answer)) return answer;
      const requests = inputs.requests();
      const keys = Object.keys(requests);
      const yieldMs = yieldOf(input);
      if (keys.length > 0) {
        const state: ResumeState = { script: answer.interrupted, keys, ...(yieldMs !== undefined ? { yieldMs } : {}) };
        return inputRequired({ inputRequests: requests, requestState: await codec.mint(state, ctx) });
      }
      // The upstream withdrew its request before we answered: watch on.
      interrupt = new AbortController();
      watch = { ...watch, interrupt: interrupt.signal };
      input = { action: 'wait', script: answer.interrupted, ...(yieldMs !== undefined ? { yield_ms: yieldMs } : {}) };
    }
  } finally {
    stopListening();
  }
}

function yieldOf(input: unknown): number | undefined {
  const given = (input as { yield_ms?: unknown }).yield_ms;
  return typeof given === 'number' ? given : undefined;
}
