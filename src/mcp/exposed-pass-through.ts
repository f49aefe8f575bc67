/**
 * An exposed tool or prompt whose upstream speaks 2026-07-28, called directly by a 2026-07-28
 * client: the upstream asks for input by answering `input_required` itself, and that answer goes
 * to the client unchanged (the upstream's keys, its requests), with a `requestState` of ours that
 * wraps the upstream's own: signed (the process's codec, input-required.ts), naming the tool or
 * prompt. The client's retry brings the answers; they go back to the upstream with its own
 * requestState, and its answer comes back in turn: a result, or another round. Nothing waits here
 * between rounds, since the upstream keeps its state in the requestState. (An upstream that
 * speaks 2025 asks by server-to-client requests instead, which exposed-input.ts turns into rounds.)
 */
import {
  inputRequired,
  type InputRequiredResult,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { isUpstreamInputRequired, type UpstreamInputRequired, type UpstreamRound } from '../upstream/routing/round-trip.js';
import { foreignState, type ResumeState } from './request-state.js';
import { declaredCapabilities } from './input-required-caller.js';

export type PassedMethod = 'tools/call' | 'prompts/get';

/**
 * One round: `send` sends the request to the upstream with this round's answers and the
 * upstream's own requestState (none on a first call); its `input_required` is handed to the
 * client with our requestState in place of the upstream's.
 */
export async function passThroughRound<R>(
  codec: RequestStateCodec<ResumeState>,
  method: PassedMethod,
  name: string,
  ctx: ServerContext,
  send: (round: UpstreamRound) => Promise<R | UpstreamInputRequired>,
): Promise<R | InputRequiredResult> {
  const resumed = ctx.mcpReq.requestState<ResumeState>();
  if (resumed !== undefined && (!('pass' in resumed) || resumed.pass !== method || resumed.name !== name)) {
    throw foreignState(resumed);
  }
  const capabilities = declaredCapabilities(ctx) ?? {};
  const { inputResponses } = ctx.mcpReq;
  const answer = await send({
    capabilities,
    ...(inputResponses !== undefined ? { inputResponses } : {}),
    ...(resumed?.upstream !== undefined ? { requestState: resumed.upstream } : {}),
  });
  if (!isUpstreamInputRequired(answer)) return answer;
  // A request the client did not declare it can answer (the upstream was told what it declared) is
  // refused by the SDK as it sends our answer: -32021, naming the capability.
  const state: ResumeState = {
    pass: method,
    name,
    ...(answer.requestState !== undefined ? { upstream: answer.requestState } : {}),
  };
  return inputRequired({ inputRequests: answer.inputRequests, requestState: await codec.mint(state, ctx) });
}
