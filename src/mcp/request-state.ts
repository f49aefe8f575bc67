/**
 * The `requestState` a 2026-07-28 client echoes back on the retry that answers our
 * `input_required`: what it carries (ResumeState), the codec that signs it and binds it to its
 * caller, and the refusal of one sent with another call's retry.
 */
import { randomBytes } from 'node:crypto';
import {
  ProtocolError,
  ProtocolErrorCode,
  createRequestStateCodec,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';

/**
 * What a `requestState` of ours carries: the requests the retry answers, and what it then waits
 * on: a script (code_execution), or an exposed tool's call still out (exposed-input.ts); or, for
 * an exposed tool or prompt whose upstream asked by `input_required` itself, its name and the
 * upstream's own requestState to send back with the answers (exposed-pass-through.ts).
 */
export type ResumeState =
  | { readonly script: string; readonly keys: readonly string[]; readonly yieldMs?: number }
  | { readonly call: string; readonly tool: string; readonly keys: readonly string[] }
  | { readonly pass: 'tools/call' | 'prompts/get'; readonly name: string; readonly upstream?: string };

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

/** A retry whose requestState was minted for another tool's call (or another prompt's get). */
export function foreignState(state: ResumeState): ProtocolError {
  const subject =
    'script' in state
      ? 'a call of code_execution'
      : 'call' in state
        ? `a call of ${state.tool}`
        : state.pass === 'prompts/get'
          ? `prompts/get of ${state.name}`
          : `a call of ${state.name}`;
  const retry = 'pass' in state && state.pass === 'prompts/get' ? "that prompt's retry" : "that tool's retry";
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `requestState was given for ${subject}: send it again with ${retry}, not another's`,
  );
}
